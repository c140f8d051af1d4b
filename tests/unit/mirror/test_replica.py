"""The replica kept current: warm snapshots, events, frames, polls, probes, stable refs."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_mobile_agent.errors import Disconnected, StaleElement
from pytest_mobile_agent.mirror.replica import Replica
from pytest_mobile_agent.session import backends as b
from pytest_mobile_agent.session.backends import ReadReason
from pytest_mobile_agent.session.tree import parse_snapshot
from tests.support.mirror_fakes import Rig, login_screen
from tests.support.session_fakes import node, snapshot, window

R = ReadReason


def frame(hash: int, at: float) -> b.FrameEvent:
    return b.FrameEvent(hash=hash, captured_at=at, received_at=at, seq=0, width=540, height=1200)


def test_the_first_look_reads_with_the_attach_bound_and_a_warm_snapshot_reads_nothing() -> None:
    rig = Rig(login_screen())
    first = rig.mirror.snapshot()
    assert rig.reasons == [R.ATTACH] and first.node_count == 5
    for _ in range(100):
        assert rig.mirror.snapshot() is first
    assert rig.reasons == [R.ATTACH]


def test_an_event_reads_again_for_the_window_it_names() -> None:
    rig = Rig(login_screen())
    rig.mirror.snapshot()
    rig.events.put(b.ProtocolEvent(1, "window_changed", {"window": 12, "nodes": [3]}, 0.0))
    rig.mirror.snapshot()
    rig.events.put(b.ProtocolEvent(2, "windows_changed", {"windows": [12, 31]}, 0.0))
    rig.mirror.snapshot()
    assert rig.tree.reads == [(R.ATTACH, []), (R.EVENT, [12]), (R.EVENT, [12, 31])]


def test_a_frame_reads_again_only_when_its_hash_changes() -> None:
    rig = Rig(login_screen(), live_frames=True)
    rig.mirror.snapshot()
    rig.events.put(frame(7, 1.0))
    rig.mirror.snapshot()
    rig.events.put(frame(7, 1.1))
    rig.events.put(frame(7, 1.2))
    rig.mirror.snapshot()
    rig.events.put(frame(8, 1.3))
    rig.mirror.snapshot()
    assert rig.reasons == [R.ATTACH, R.FRAME, R.FRAME]


def test_a_change_drawn_before_a_fresh_read_but_arriving_after_it_reads_nothing() -> None:
    """A starved host takes a frame off the stream late: the emulator drew it before the read that
    already showed the screen began, so it is no news (its capture time, from timestampUs, says so)."""
    rig = Rig(login_screen(), live_frames=True)
    drawn = rig.clock.now
    rig.clock.now += 0.2
    rig.mirror.snapshot()
    rig.events.put(b.FrameEvent(hash=8, captured_at=drawn, received_at=rig.clock.now, seq=1, width=540,
                                height=1200, changed_at=drawn))
    rig.mirror.snapshot()
    rig.clock.now += 0.5
    rig.mirror.snapshot()
    assert rig.reasons == [R.ATTACH]
    rig.events.put(b.FrameEvent(hash=9, captured_at=rig.clock.now, received_at=rig.clock.now, seq=2, width=540,
                                height=1200, changed_at=rig.clock.now + 0.01))
    rig.clock.now += 0.5
    rig.mirror.snapshot()
    assert rig.reasons == [R.ATTACH, R.FRAME], "a change drawn after the read began is news"


def test_a_gap_and_a_resync_read_everything_again_with_the_idle_bound() -> None:
    rig = Rig(login_screen())
    rig.mirror.snapshot()
    rig.events.put(b.OutOfSync(expected=3, got=9))
    rig.events.put(b.ProtocolEvent(9, "window_changed", {"window": 12}, 0.0))
    rig.mirror.snapshot()
    assert rig.reasons == [R.ATTACH, R.RESYNC]  # one read, for the strongest reason


def test_refs_stay_stable_when_the_agent_renumbers_the_nodes() -> None:
    rig = Rig(login_screen(first=1))
    login = rig.mirror.find(text="Login")
    sign_in = rig.mirror.find(desc="Sign in")
    rig.tree.screen = login_screen(first=50, welcome=True)  # the cache was evicted: new agent ids
    view = rig.mirror.refresh()
    assert rig.mirror.find(text="Login") == login and login.node.id == 51
    assert rig.mirror.find(desc="Sign in").ref == sign_in.ref
    welcome = rig.mirror.find(text_contains="Welcome")
    assert welcome.ref not in (login.ref, sign_in.ref) and view.node_count == 6
    rig.tree.screen = login_screen(first=90)
    rig.mirror.refresh()
    assert not welcome.exists
    with pytest.raises(StaleElement, match="no longer on the screen"):
        _ = welcome.text
    assert login.text == "Login"


def test_while_waiting_the_replica_is_read_again_every_second() -> None:
    rig = Rig(login_screen(), can_probe=False)
    rig.tree.on_read = lambda n: setattr(rig.tree, "screen", login_screen(welcome=True)) if n == 3 else None
    start = rig.clock.now
    found = rig.mirror.wait_for(text="Welcome, ada", timeout=10)
    assert found.text == "Welcome, ada"
    assert rig.reasons == [R.ATTACH, R.POLL, R.POLL]
    assert rig.clock.now - start == pytest.approx(2.0)


def test_a_settle_without_frames_probes_and_reads_the_moved_window_evicted() -> None:
    rig = Rig(login_screen())
    rig.mirror.snapshot()
    moved = {2: (0, 400, 360, 526)}
    rig.tree.bounds_now = lambda i: moved.get(i, _bounds_of(rig, i))
    rig.tree.on_read = lambda n: (setattr(rig.tree, "bounds_now", None) if n == 2 else None)
    assert rig.mirror.settle(timeout=2.0)
    assert rig.tree.reads[1] == (R.MOVED, [12])
    assert len(rig.tree.probes) >= 2 and all(len(p) == 5 for p in rig.tree.probes)


def _bounds_of(rig: Rig, node_id: int) -> b.Bounds:
    for w in rig.tree.screen["windows"]:
        for n in w["nodes"]:
            if n["id"] == node_id:
                return tuple(n["bounds"])  # type: ignore[return-value]
    raise KeyError(node_id)


def test_with_frames_the_settle_never_probes() -> None:
    rig = Rig(login_screen(), live_frames=True)
    rig.mirror.snapshot()
    assert rig.mirror.settle(timeout=2.0)
    assert rig.tree.probes == []


def test_a_screen_that_never_stops_changing_ends_the_settle_at_its_timeout() -> None:
    rig = Rig(login_screen(), live_frames=True)
    rig.mirror.snapshot()
    for k in range(200):
        rig.events.at(rig.clock.now + 0.05 * k, frame(k, rig.clock.now + 0.05 * k))
    start = rig.clock.now
    assert rig.mirror.settle(timeout=1.0) is False
    assert rig.clock.now - start == pytest.approx(1.0, abs=0.06)


def test_a_disconnection_ends_the_reads_with_the_reconnect_hint() -> None:
    rig = Rig(login_screen())
    rig.mirror.snapshot()
    rig.events.put(b.Disconnection("killed", "attach again to relaunch or reuse the agent"))
    assert rig.mirror.wait_disconnected(1.0).reason == "killed"
    with pytest.raises(Disconnected, match="killed") as info:
        rig.mirror.refresh()
    assert info.value.reconnect_hint == "attach again to relaunch or reuse the agent"
    with pytest.raises(Disconnected):
        rig.mirror.tap(text="Login")
    assert rig.input.calls == []


def test_a_probe_that_fails_leaves_the_wait_to_the_poll() -> None:
    from pytest_mobile_agent.errors import Timeout

    rig = Rig(login_screen())
    rig.mirror.snapshot()

    def late(node_id: int) -> b.Bounds:
        raise Timeout("the agent request bounds", 0.5)

    rig.tree.bounds_now = late
    rig.tree.on_read = lambda n: setattr(rig.tree, "screen", login_screen(welcome=True)) if n == 2 else None
    assert rig.mirror.wait_for(text="Welcome, ada", timeout=3).exists
    assert rig.mirror.probes == 0 and rig.reasons == [R.ATTACH, R.POLL]


def test_a_settle_does_not_count_a_quiet_no_answered_look_saw() -> None:
    """A starved host: the one probe of the quiet went unanswered for 0.5 s while the screen moved on,
    and the settle ended on the replica of before (no probe made, tests/device' slide-in). The quiet
    counts once a look that began after its end was answered."""
    from pytest_mobile_agent.errors import Timeout

    rig = Rig(login_screen())
    rig.mirror.snapshot()

    def starved(node_id: int) -> b.Bounds:
        rig.clock.now += 0.5  # the probe's deadline passes; meanwhile the screen slid down
        rig.tree.screen, rig.tree.bounds_now = _slid(login_screen(), 100), None
        raise Timeout("the agent request bounds", 0.5)

    rig.tree.bounds_now = starved
    assert rig.mirror.settle(timeout=3.0)
    assert rig.mirror.probes > 0 and rig.reasons == [R.ATTACH, R.MOVED]
    assert rig.mirror.find(text="Login").bounds == (0, 310, 360, 436)


def _slid(screen: dict[str, Any], dy: int) -> dict[str, Any]:
    for w in screen["windows"]:
        for n in w["nodes"]:
            left, top, right, bottom = n["bounds"]
            n["bounds"] = [left, top + dy, right, bottom + dy]
    return screen


def test_repeated_unchanged_frames_do_not_starve_the_poll() -> None:
    rig = Rig(login_screen(), live_frames=True)
    rig.mirror.snapshot()
    for k in range(100):  # the same frame every 50 ms, as a controller repeats them
        rig.events.at(rig.clock.now + 0.05 * k, frame(7, rig.clock.now + 0.05 * k))
    rig.tree.on_read = lambda n: setattr(rig.tree, "screen", login_screen(welcome=True)) if n == 3 else None
    assert rig.mirror.wait_for(text="Welcome, ada", timeout=4).exists
    assert rig.reasons == [R.ATTACH, R.FRAME, R.POLL]  # the first frame is news; then the poll


def test_siblings_sharing_a_resource_id_get_refs_of_their_own_that_survive_a_reread() -> None:
    """A list's rows often share one resource id: each row is an element of its own (two rows under
    one ref made `within=` and a held element point at the wrong row)."""
    rows = [node(2 + k, 1, 1, text=f"Row {k}", res="row", bounds=(0, 100 * k, 1080, 100 * k + 90))
            for k in range(3)]
    first = Replica()
    first.apply(parse_snapshot(snapshot(window(5, [node(1, None, 0, children=(2, 3, 4)), *rows])),
                               scale=2.625, reason=ReadReason.POLL, read_at=0.0))
    view = first.view
    assert view is not None
    refs = [e.ref for e in view.entries if e.node.res == "row"]
    assert len(set(refs)) == 3
    reread = [node(12 + k, 11, 1, text=f"Row {k}", res="row", bounds=(0, 100 * k, 1080, 100 * k + 90))
              for k in range(3)]
    first.apply(parse_snapshot(snapshot(window(5, [node(11, None, 0, children=(12, 13, 14)), *reread])),
                               scale=2.625, reason=ReadReason.POLL, read_at=1.0))
    again = first.view
    assert again is not None
    assert [e.ref for e in again.entries if e.node.res == "row"] == refs
    assert [again.entry(ref).node.text for ref in refs] == ["Row 0", "Row 1", "Row 2"]  # type: ignore[union-attr]
