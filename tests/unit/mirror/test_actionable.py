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
    assert round(y) == 1200 + 70


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


# --- issue 41, item 1: an action touches what is on the screen --------------------------------------


def _landscape_login() -> dict:
    """The Login tab after a turn to landscape: a 2400x1080 display, the button laid out below it."""
    screen = login_screen()
    screen["display"] = {"width": 2400, "height": 1080, "density": 420, "rotation": 1}
    screen["windows"][0]["bounds"] = [0, 0, 2400, 1080]
    nodes = screen["windows"][0]["nodes"]
    nodes.append(node(9, 1, 1, text="Login", cls="android.widget.Button", bounds=(63, 1101, 2337, 1248),
                      clickable=True, res="login_button"))
    screen["windows"] = [dict(screen["windows"][0], nodes=tree(*nodes))]
    return screen


def test_an_element_below_the_display_is_not_visible_and_a_tap_on_it_fails_saying_where() -> None:
    """The agent calls the button visible (a toolkit laid it out below a landscape display); Android's
    isVisibleToUser does not, and a tap must not be acked for a point off the screen."""
    rig = Rig(_landscape_login())
    button = rig.mirror.find(id="login_button")
    assert button.visible is False
    assert not rig.mirror.exists(id="login_button", visible=True)
    with pytest.raises(WaitTimeout) as caught:
        rig.mirror.tap(id="login_button", timeout=0.5)
    message = str(caught.value)
    assert "it is outside the display: [63,1101][2337,1248] lies below the bottom edge (y 1080)" in message
    assert rig.input.calls == []
    with pytest.raises(InvalidArgument, match=r"tap_at\(1200, 1174\) is outside the display, which is 2400x1080"):
        rig.mirror.tap_at(1200, 1174)
    assert rig.input.calls == []


def _list_with_row_at(top: int) -> dict:
    """A list [0,336][1080,1200] whose row "Item 7" lies at `top` (the content scrolled by the taps)."""
    scroll = {"horizontal": False, "vertical": True, "can_back": True, "can_forward": True, "items": 50,
              "first": 0, "last": 4}
    nodes = [node(1, None, 0), node(2, 1, 1, bounds=(0, 336, 1080, 1200), scrollable=True, scroll=scroll),
             node(3, 2, 2, text="Item 0", bounds=(0, 336, 1080, 536)),
             node(4, 2, 2, text="Item 7", bounds=(0, top, 1080, top + 200), clickable=True)]
    return {"windows": [window(12, tree(*nodes))], "node_count": len(nodes), "truncated": False,
            "idle": {"waited_ms": 0, "idle": True}, "seq": 0,
            "display": {"width": 1080, "height": 2400, "density": 420, "rotation": 0}}


def test_a_row_scrolled_out_of_its_list_is_scrolled_into_view_and_then_tapped() -> None:
    rig = Rig(_list_with_row_at(1500))  # on the display, but below the list's bottom edge
    assert rig.mirror.find(text="Item 7").visible  # the agent's word: the replica clips only to the window
    row_top = [1500]

    def scrolled(call: tuple) -> None:
        if call[0] == "swipe":
            _, _, y1, _, y2, _, _ = call
            row_top[0] += round(y2 - y1)
            rig.tree.screen = _list_with_row_at(row_top[0])

    rig.input.on_input = scrolled
    rig.mirror.tap(text="Item 7")
    kinds = [call[0] for call in rig.input.calls]
    assert kinds[-1] == "tap" and "swipe" in kinds
    swipe = next(call for call in rig.input.calls if call[0] == "swipe")
    assert swipe[4] < swipe[2]  # the finger went up: the content scrolled down toward the row
    _, x, y = rig.input.calls[-1]
    assert 336 <= y < 1200  # inside the list's visible part


def test_a_half_shown_row_is_tapped_in_its_shown_half() -> None:
    rig = Rig(_list_with_row_at(1100))  # rows 1100..1300, the list ends at 1200
    rig.mirror.tap(text="Item 7")
    _, _, y = rig.input.calls[-1]
    assert round(y) == 1150
    assert [call[0] for call in rig.input.calls] == ["tap"]


def test_a_tap_lands_clear_of_a_window_above_that_covers_part_of_the_element() -> None:
    screen = login_screen()
    keyboard = window(31, tree(node(100, None, 0, bounds=(0, 600, 1080, 2400))), type="input_method",
                      title="keyboard", package="com.android.inputmethod")
    keyboard["bounds"] = [0, 600, 1080, 2400]
    screen["windows"] = [keyboard, *screen["windows"]]
    rig = Rig(screen)
    rig.mirror.tap(class_name="EditText")  # [60,500][1020,640]: the keyboard covers it from y 600
    _, _, y = rig.input.calls[-1]
    assert round(y) == 550
    with pytest.raises(WaitTimeout, match="it is covered by the window 'keyboard'"):
        rig.mirror.tap(desc="Sign in", timeout=0.3)  # [60,700][1020,840]: wholly under the keyboard
    assert [call[0] for call in rig.input.calls] == ["tap", "key"]  # one BACK to hide it (it stayed here)
