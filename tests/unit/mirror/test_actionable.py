"""Actions wait for their element (issue 25, item 1): it exists, is visible and enabled, and holds
still (two consecutive looks, the same bounds), up to the action's timeout; `find` stays immediate."""

from __future__ import annotations

import pytest

from pytest_mobile_agent.errors import InvalidArgument, NoMatch, StaleElement, WaitTimeout
from pytest_mobile_agent.session.backends import ProtocolEvent, ReadReason
from tests.support.mirror_fakes import Rig, list_screen, login_screen, node, tree, window


def _changed(at: float) -> ProtocolEvent:
    return ProtocolEvent(seq=1, name="window_changed", data={"window": 12}, received_at=at)


def _with_next(enabled: bool = True, top: int = 1100) -> dict:
    screen = login_screen()
    nodes = screen["windows"][0]["nodes"]
    nodes.append(node(9, 1, 1, text="Next", cls="android.widget.Button", bounds=(60, top, 1020, top + 140),
                      clickable=True, enabled=enabled))
    screen["windows"] = [window(12, tree(*nodes))]
    return screen


def test_a_tap_waits_for_an_element_that_appears_later_and_find_does_not() -> None:
    rig = Rig(login_screen())
    rig.events.at(rig.clock.now + 0.3, _changed(rig.clock.now + 0.3))
    rig.tree.on_read = lambda n: setattr(rig.tree, "screen", _with_next()) if n >= 2 else None
    with pytest.raises(NoMatch):
        rig.mirror.find(text="Next")  # immediate: the button is not there yet
    start = rig.clock.now
    ack = rig.mirror.tap(text="Next")
    assert ack.accepted and rig.input.calls[-1][0] == "tap"
    assert 0.29 < rig.clock.now - start < 1.0  # the change event brought it, not the next poll
    assert rig.tree.probes[-1] == [9]  # the second look: the node's bounds held


def test_a_timeout_says_why_and_shows_the_nearest_candidates_as_wait_for_does() -> None:
    rig = Rig(login_screen())
    with pytest.raises(WaitTimeout) as caught:
        rig.mirror.tap(text="Logn", timeout=0.5)
    message = str(caught.value)
    assert "waiting for text='Logn' to be actionable (no element matches) timed out" in message
    assert "nearest candidates" in message and '"Login"' in message
    assert rig.input.calls == []


def test_a_disabled_element_is_waited_for_until_it_is_enabled() -> None:
    rig = Rig(_with_next(enabled=False))
    with pytest.raises(WaitTimeout, match="it is disabled"):
        rig.mirror.tap(text="Next", timeout=1.0)
    rig.events.at(rig.clock.now + 0.4, _changed(rig.clock.now + 0.4))
    rig.tree.screen = _with_next(enabled=True)
    assert rig.mirror.tap(text="Next").accepted


def test_an_element_that_moves_is_tapped_once_it_holds_still() -> None:
    """A probe finds the node elsewhere (a sheet sliding in): the window is read again, and the tap
    waits until two looks agree; it lands at the centre of where the node came to rest."""
    rig = Rig(_with_next(top=1100))
    rig.mirror.find(text="Next")
    positions = iter([1300, 1200])

    def bounds_now(node_id: int) -> tuple[int, int, int, int]:
        top = next(positions, 1200)
        rig.tree.screen = _with_next(top=top)
        return (60, top, 1020, top + 140)

    rig.tree.bounds_now = bounds_now
    rig.mirror.tap(text="Next")
    assert ReadReason.MOVED in rig.reasons
    _, x, y = rig.input.calls[-1]
    assert round(y * rig.backend.scale) == 1200 + 70


def test_without_probes_the_second_look_is_a_fresh_read() -> None:
    rig = Rig(_with_next(), can_probe=False)
    rig.mirror.find(text="Next")
    reads = len(rig.tree.reads)
    rig.mirror.tap(text="Next")
    assert len(rig.tree.reads) == reads + 1 and rig.reasons[-1] is ReadReason.POLL


def test_an_element_action_waits_and_a_gone_element_is_stale_at_once() -> None:
    rig = Rig(_with_next(enabled=False))
    button = rig.mirror.find(text="Next")
    rig.events.at(rig.clock.now + 0.2, _changed(rig.clock.now + 0.2))
    rig.tree.screen = _with_next(enabled=True)
    assert button.tap().accepted
    rig.events.put(_changed(rig.clock.now))
    rig.tree.screen = login_screen()
    start = rig.clock.now
    with pytest.raises(StaleElement, match="no longer on the screen"):
        button.long_press(timeout=5)
    assert rig.clock.now - start < 0.5


def test_a_timeout_of_zero_is_one_look_and_a_bad_one_names_the_argument() -> None:
    rig = Rig(login_screen())
    start = rig.clock.now
    with pytest.raises(WaitTimeout):
        rig.mirror.tap(text="Next", timeout=0)
    assert rig.clock.now == start
    with pytest.raises(InvalidArgument, match="timeout must be a finite number"):
        rig.mirror.tap(text="Login", timeout=-1)
    with pytest.raises(InvalidArgument, match="action_timeout"):
        type(rig.mirror)(rig.backend, action_timeout=float("nan"))


def test_type_text_and_scroll_until_wait_for_their_field_and_container() -> None:
    rig = Rig(login_screen())
    rig.events.at(rig.clock.now + 0.2, _changed(rig.clock.now + 0.2))
    rig.tree.on_read = lambda n: setattr(rig.tree, "screen", _with_next()) if n >= 2 else None
    rig.mirror.type_text("x", class_name="Button", text_contains="Nex")
    assert rig.input.calls[-1][:2] == ("text", "x")
    rig = Rig(login_screen())
    rig.events.at(rig.clock.now + 0.2, _changed(rig.clock.now + 0.2))
    rig.tree.on_read = lambda n: setattr(rig.tree, "screen", list_screen(0)) if n >= 2 else None
    assert rig.mirror.scroll_until(text="Item 3").text == "Item 3"  # the list came, with the item on it
    with pytest.raises(NoMatch, match="after scrolling down"):
        Rig(login_screen()).mirror.scroll_until(text="Item 3", timeout=0.3)
