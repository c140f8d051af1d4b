"""session::tests: the session on a scripted agent connection, through its backends and a mirror."""

from __future__ import annotations

import base64
import time
from collections.abc import Iterator
from typing import Any

import pytest

from pytest_mobile_agent.agent import Connection
from pytest_mobile_agent.agent.protocol import Disconnection, Hint, ProtocolEvent
from pytest_mobile_agent.errors import AgentError, Disconnected, InvalidArgument, ProtocolError
from pytest_mobile_agent.mirror import Mirror
from pytest_mobile_agent.mirror.mirror import FRAME_QUIET
from pytest_mobile_agent.session import BackendTaken, ReadReason, Session
from pytest_mobile_agent.session import backends as b
from tests.support.scripted_agent import TOKEN, ScriptedAgent
from tests.support.session_fakes import (
    FakeAttached,
    FakeConnection,
    FakeController,
    FakeDevice,
    keyboard_window,
    node,
    rgb_frame,
    snapshot,
    tabs_window,
    window,
)


def start(conn: FakeConnection | None = None, controller: FakeController | None = None,
          density: str = "Physical density: 420\n") -> tuple[Session, FakeAttached]:
    attached = FakeAttached(connection=conn or FakeConnection(), device=FakeDevice(density))
    return Session.start(attached, controller), attached


def test_a_read_passes_the_agents_snapshot_through_with_the_scale_and_the_backend() -> None:
    conn = FakeConnection()
    scroll = {"horizontal": False, "vertical": True, "can_back": False, "can_forward": True,
              "items": 500, "first": 0, "last": 11}
    big = window(12, [node(1, children=(2,)), node(2, 1, 1, scrollable=True, scroll=scroll)], events=False)
    conn.always("snapshot", snapshot(big, keyboard_window(), seq=41, node_count=5000, truncated=True))
    session, attached = start(conn)
    assert attached.device.commands == ["wm density"]
    snap = session.backend().tree.read(ReadReason.ATTACH)
    assert snap.scale == 2.625 and snap.backend == "agent"
    assert [w.id for w in snap.windows] == [12, 31]  # the keyboard's window included, in order
    assert snap.windows[1].type == "input_method" and snap.windows[1].nodes[1].desc == "q"
    assert snap.node_count == 5000 and snap.truncated and snap.seq == 41
    assert snap.windows[0].nodes[1].scroll == b.Scroll(False, True, False, True, 500, 0, 11)
    assert not snap.windows[0].metadata.sends_change_events
    assert session.reads == 1 and session.last_read is not None
    assert session.last_read.reason is ReadReason.ATTACH and session.last_read.node_count == 5000


def test_events_reach_the_backends_stream_in_order() -> None:
    conn = FakeConnection()
    session, _ = start(conn)
    events = session.backend().events
    for seq in (1, 2, 3):
        conn.emit(ProtocolEvent(seq, "window_changed", {"window": 12, "nodes": [seq]}, received_at=100.0 + seq))
    got = [events.next_event(1.0) for _ in range(3)]
    assert [e.seq for e in got if isinstance(e, b.ProtocolEvent)] == [1, 2, 3]
    assert all(isinstance(e, b.ProtocolEvent) and e.window == 12 for e in got)
    assert isinstance(got[0], b.ProtocolEvent) and got[0].received_at == 101.0  # the host time it arrived
    assert events.next_event(0.01) is None


@pytest.fixture
def scripted() -> Iterator[tuple[ScriptedAgent, Connection]]:
    """The real agent.Connection on a scripted agent peer (a socketpair)."""
    agent = ScriptedAgent(handlers={
        "snapshot": lambda request: snapshot(tabs_window(events=True)),
        "resync": lambda request: {"seq": 5},
    }).start()
    conn = Connection.open(agent.host_end, TOKEN, timeout=2.0)
    try:
        yield agent, conn
    finally:
        conn.close()
        agent.close()


def test_a_sequence_gap_reaches_the_mirror_and_the_stream_is_resynchronized(
    scripted: tuple[ScriptedAgent, Connection],
) -> None:
    agent, conn = scripted
    session = Session.start(FakeAttached(connection=conn), scale=2.625)  # type: ignore[arg-type]
    mirror = Mirror(session.backend())
    mirror.snapshot()
    assert len(agent.frames("request")) == 1
    agent.event(seq=1)
    agent.event(seq=5)  # 2 to 4 never came
    assert agent.wait_for(lambda: any(r["method"] == "resync" for r in agent.frames("request")))
    deadline = time.monotonic() + 2.0
    seen: list[b.SessionEvent] = []
    while not any(isinstance(e, b.Resynced) for e in seen) and time.monotonic() < deadline:
        event = session.events.next_event(0.1)
        if event is not None:
            seen.append(event)
    kinds = [type(e).__name__ for e in seen]
    assert kinds == ["ProtocolEvent", "OutOfSync", "ProtocolEvent", "Resynced"], kinds  # seq 5 itself passes too
    out_of_sync = seen[1]
    assert isinstance(out_of_sync, b.OutOfSync) and (out_of_sync.expected, out_of_sync.got) == (2, 5)
    for event in seen:  # hand them on to the mirror, which the test read them in place of
        session.events.put(event)
    mirror.snapshot()
    reads = [r for r in agent.frames("request") if r["method"] == "snapshot"]
    # the gap makes the mirror read everything again, with the idle bound of a read after a resync
    assert len(reads) == 2 and reads[1]["params"]["idle_timeout_ms"] == 500
    assert session.last_read is not None and session.last_read.reason is ReadReason.RESYNC
    agent.event(seq=6)
    assert agent.wait_for(lambda: mirror.snapshot() is not None and session.reads == 3)
    assert [r for r in agent.frames("request") if r["method"] == "snapshot"][2]["params"]["idle_timeout_ms"] == 0


def test_a_mirror_on_the_session_reads_a_compose_window_again_after_a_tap() -> None:
    conn = FakeConnection()
    conn.script("snapshot", snapshot(tabs_window(events=False)))
    conn.always("snapshot", snapshot(tabs_window(events=False, first_id=7)))  # evicted: new ids
    conn.always("bounds", {"nodes": [{"id": 2, "bounds": [0, 210, 360, 336]}]})  # the tap's look: still
    session, _ = start(conn)
    screen = Mirror(session.backend())
    login = screen.find(text="Login")
    before = login.ref
    screen.snapshot()
    assert len(conn.sent("snapshot")) == 1  # no event came: the replica serves it
    ack = login.tap()
    assert ack.accepted and ack.path == "agent"
    assert conn.sent("tap") == [{"x": 180, "y": 273, "hold_ms": 0}]
    screen.snapshot()
    reads = conn.sent("snapshot")
    assert len(reads) == 2 and reads[1]["idle_timeout_ms"] == 500 and reads[1]["idle_quiet_ms"] == 200
    assert screen.find(text="Login").ref == before and login.node.id == 8


def _foreign_input_read(conn: FakeConnection, first: dict) -> dict:
    conn.script("snapshot", first)
    conn.always("snapshot", first)
    controller = FakeController()
    session, _ = start(conn, controller)
    try:
        backend = session.backend()
        backend.tree.read(ReadReason.ATTACH)
        backend.input.tap(262, 262)  # through the controller: press and lift in one call
        assert controller.taps == [(262, 262)]
        assert conn.sent("tap") == []
        backend.tree.read(ReadReason.ACTION)
        assert conn.sent("resync") == []  # no resync: the stream stays as it is
        return conn.sent("snapshot")[-1]
    finally:
        session.stop()


def test_after_input_the_agent_did_not_inject_a_read_evicts_only_the_event_less_windows() -> None:
    conn = FakeConnection()
    params = _foreign_input_read(conn, snapshot(tabs_window(events=False), keyboard_window()))
    assert params["evict_event_less"] is True
    assert "evict" not in params  # the other windows' cache, kept current by events, stays


def test_without_the_events_capability_a_read_after_foreign_input_still_evicts() -> None:
    conn = FakeConnection(capabilities=("window_metadata",))
    params = _foreign_input_read(conn, snapshot(tabs_window(events=False)))
    assert params["evict_event_less"] is True


def test_without_compose_foreign_input_only_delays_the_read() -> None:
    clock = [100.0]
    slept: list[float] = []
    conn = FakeConnection()
    conn.always("snapshot", snapshot(tabs_window(events=True)))
    attached = FakeAttached(connection=conn)
    session = Session(attached, 2.625, FakeController(), clock=lambda: clock[0], sleep=slept.append)
    try:
        backend = session.backend()
        backend.tree.read(ReadReason.ATTACH)
        backend.input.long_press(10, 10, 0.0)
        clock[0] += 0.05
        backend.tree.read(ReadReason.ACTION)
        assert slept == [pytest.approx(0.15)]  # until the input is 200 ms old
        assert "evict_event_less" not in conn.sent("snapshot")[-1]
        backend.tree.read(ReadReason.POLL)
        assert slept == [pytest.approx(0.15)]  # only the first read after the input waits
    finally:
        session.stop()


def test_a_read_once_the_frames_went_still_after_foreign_input_takes_no_fixed_wait() -> None:
    """Issue 16 item 7: the frames going still after the controller's input are the evidence the
    fixed 200 ms stood in for; the read still evicts the event-less (Compose) windows."""
    clock = [100.0]
    slept: list[float] = []
    conn = FakeConnection()
    conn.always("snapshot", snapshot(tabs_window(events=False)))
    session = Session(FakeAttached(connection=conn), 2.625, FakeController(), clock=lambda: clock[0],
                      sleep=slept.append)
    try:
        backend = session.backend()
        backend.tree.read(ReadReason.ATTACH)
        backend.input.swipe(10, 10, 10, 200, 0.0)
        gesture = len(slept)  # the swipe's own pacing
        clock[0] += 0.1
        backend.tree.read(ReadReason.FRAME)
        assert slept[gesture:] == []
        assert conn.sent("snapshot")[-1]["evict_event_less"] is True
        assert conn.sent("snapshot")[-1]["idle_timeout_ms"] == 0
    finally:
        session.stop()


def test_a_probe_asks_the_agent_for_the_nodes_and_maps_them_back_to_their_windows() -> None:
    conn = FakeConnection()
    conn.always("snapshot", snapshot(tabs_window(12), keyboard_window(31)))
    conn.always("bounds", {"nodes": [{"id": 2, "bounds": [0, 300, 360, 426]},
                                     {"id": 101, "bounds": [0, 1500, 108, 1650]},
                                     {"id": 999, "bounds": [0, 0, 1, 1]}]})
    session, _ = start(conn)
    tree = session.backend().tree
    assert tree.can_probe
    tree.read(ReadReason.ATTACH)
    found = tree.probe([2, 3, 101])
    assert conn.sent("bounds") == [{"ids": [2, 3, 101]}] and conn.timeouts("bounds") == [0.5]
    assert found == {12: {2: (0, 300, 360, 426)}, 31: {101: (0, 1500, 108, 1650)}}


def test_an_agent_without_bounds_probes_is_never_probed() -> None:
    clock = [0.0]
    conn = FakeConnection(capabilities=("events", "window_metadata"))
    conn.always("snapshot", snapshot(tabs_window(events=False)))
    session, _ = start(conn)
    backend = session.backend()
    assert not backend.tree.can_probe
    with pytest.raises(ProtocolError, match="bounds"):
        backend.tree.probe([1])
    screen = Mirror(backend, clock=lambda: clock[0], quiet=0.05)
    screen.snapshot()
    _advance_settle(screen, clock, 0.5)
    assert conn.sent("bounds") == []


def _advance_settle(screen: Mirror, clock: list[float], seconds: float) -> None:
    """Drive the mirror's waits on a stepped clock: each wait step moves time on by 20 ms."""
    events = screen.backend.events
    original = events.next_event

    def stepping(timeout: float) -> b.SessionEvent | None:
        clock[0] += min(timeout, 0.02) if timeout > 0 else 0
        return original(0)

    events.next_event = stepping  # type: ignore[method-assign]
    try:
        screen.settle(timeout=seconds, quiet=seconds * 2)
    finally:
        events.next_event = original  # type: ignore[method-assign]


def test_a_read_for_moved_nodes_asks_the_agent_to_evict_their_windows() -> None:
    conn = FakeConnection()
    conn.always("snapshot", snapshot(tabs_window(12), keyboard_window(31)))
    session, _ = start(conn)
    tree = session.backend().tree
    tree.read(ReadReason.MOVED, [31, 12, 31])
    params = conn.sent("snapshot")[-1]
    assert params["evict"] == [12, 31] and params["idle_timeout_ms"] == 0


def test_a_settle_without_frames_probes_the_agent_and_reads_the_moved_window_evicted() -> None:
    clock = [0.0]
    conn = FakeConnection()
    conn.script("snapshot", snapshot(tabs_window(12, events=False, login_top=1210), keyboard_window(31)))
    conn.always("snapshot", snapshot(tabs_window(12, events=False, login_top=210), keyboard_window(31)))
    moved = {"nodes": [{"id": 1, "bounds": [0, 0, 1080, 2400]}, {"id": 2, "bounds": [0, 700, 360, 826]},
                       {"id": 3, "bounds": [360, 210, 720, 336]}, {"id": 100, "bounds": [0, 1500, 1080, 2400]},
                       {"id": 101, "bounds": [0, 1500, 108, 1650]}]}
    conn.script("bounds", moved)
    conn.always("bounds", lambda p: {"nodes": [{"id": i, "bounds": _bounds_now(i)} for i in p["ids"]]})
    session, _ = start(conn)
    screen = Mirror(session.backend(), clock=lambda: clock[0], quiet=0.1, probe_interval=0.1)
    assert screen.find(text="Login").bounds[1] == 1210
    _advance_settle(screen, clock, 0.6)
    assert len(conn.sent("bounds")) >= 2
    reads = conn.sent("snapshot")
    assert reads[1]["evict"] == [12] and reads[1]["idle_timeout_ms"] == 0  # only the moved window
    assert screen.find(text="Login").bounds[1] == 210


def _bounds_now(node_id: int) -> list[int]:
    return {1: [0, 0, 1080, 2400], 2: [0, 210, 360, 336], 3: [360, 210, 720, 336],
            100: [0, 1500, 1080, 2400], 101: [0, 1500, 108, 1650]}[node_id]


def test_input_goes_to_the_agent_in_pixels_and_returns_its_verdict() -> None:
    conn = FakeConnection()
    conn.script("tap", {"accepted": False})
    conn.script("text", {"accepted": True, "method": "direct"})
    session, _ = start(conn)
    backend = session.backend()
    assert backend.input.tap(262, 525) == b.Ack(accepted=False, path="agent")
    assert conn.sent("tap") == [{"x": 262, "y": 525, "hold_ms": 0}]
    ack = backend.input.text("héllo 👋", node=88)
    assert ack.accepted and ack.method == "direct"
    assert session.inputs.agent == 2 and session.inputs.controller == 0


def test_screenshots_go_through_the_agent() -> None:
    conn = FakeConnection()
    png = b"\x89PNG\r\n\x1a\n-fake"
    conn.always("screenshot", {"format": "png", "width": 2400, "height": 1080, "rotation": 1,
                               "data": base64.b64encode(png).decode()})
    controller = FakeController()
    session, _ = start(conn, controller)
    try:
        shot = session.screenshot()
        assert (shot.width, shot.height, shot.rotation, shot.data) == (2400, 1080, 1, png)
        assert conn.sent("screenshot") == [{"format": "png"}]
        conn.always("screenshot", {"format": "png", "width": 1, "height": 1, "data": "%%%"})
        with pytest.raises(ProtocolError, match="screenshot"):
            session.backend().frames.screenshot()
        with pytest.raises(InvalidArgument, match="png or jpeg"):
            session.screenshot("gif")
    finally:
        session.stop()


def test_the_agent_going_away_is_reported_disconnected_with_a_reconnect_hint(
    scripted: tuple[ScriptedAgent, Connection],
) -> None:
    agent, conn = scripted
    attached = FakeAttached(connection=conn)
    session = Session.start(attached, scale=2.625, serial="emulator-5554")  # type: ignore[arg-type]
    screen = Mirror(session.backend())
    screen.snapshot()
    agent.hang_up()  # a killed agent: its socket closes
    gone = screen.wait_disconnected(timeout=2.0)
    assert gone.reconnect_hint == "attach again to relaunch or reuse the agent"
    assert not screen.connected
    with pytest.raises(Disconnected) as info:
        screen.refresh()
    assert info.value.reconnect_hint == gone.reconnect_hint
    assert session.status()[-1] == f"agent: disconnected ({gone.reason}); attach again to relaunch or reuse the agent"


def test_a_close_the_agent_announces_carries_its_hint() -> None:
    conn = FakeConnection()
    session, _ = start(conn)
    screen = Mirror(session.backend())
    conn.emit(Disconnection("the agent closed the connection (shutdown)", Hint.RELAUNCH))
    assert screen.wait_disconnected(1.0).reconnect_hint == "the agent exited; attach again to launch a new one"


def test_a_failed_read_keeps_the_agents_code() -> None:
    conn = FakeConnection()
    conn.script("snapshot", AgentError("automation_unavailable", "UI automation is not connected", method="snapshot"))
    session, _ = start(conn)
    with pytest.raises(AgentError) as info:
        session.backend().tree.read(ReadReason.ATTACH)
    assert info.value.code == "automation_unavailable"
    assert "UI automation is not connected" in str(info.value)


def test_stop_asks_the_agent_to_shut_down() -> None:
    conn = FakeConnection()
    controller = FakeController(streams=[[]])
    attached = FakeAttached(connection=conn)
    from pytest_mobile_agent.session import ControllerChoice, Selection

    selection = Selection("emulator-5554", True, ControllerChoice.Auto(), controller=controller)
    session = Session.start_selected(attached, selection)
    session.stop()
    session.stop()
    assert attached.stops == 1 and conn.sent("shutdown") == [{}]
    assert controller.closed  # the session owned the controller select_paths connected
    assert session.frames._thread is None


def test_the_backend_is_taken_once() -> None:
    session, _ = start()
    backend = session.backend()
    assert isinstance(backend.tree, b.TreeBackend) and isinstance(backend.events, b.EventBackend)
    assert isinstance(backend.input, b.InputBackend) and isinstance(backend.frames, b.FrameBackend)
    with pytest.raises(BackendTaken, match="already taken"):
        session.backend()


def test_a_frame_with_a_new_hash_reads_the_event_less_windows_again() -> None:
    conn = FakeConnection()
    conn.always("snapshot", snapshot(tabs_window(events=False)))
    controller = FakeController(streams=[[]])
    session, _ = start(conn, controller)
    try:
        screen = Mirror(session.backend())
        screen.snapshot()
        stream = _given_stream(controller)

        def reads_after(frame: Any, received: int) -> None:
            stream.push(frame)
            deadline = time.monotonic() + 5.0
            while session.frames_received < received:
                assert time.monotonic() < deadline, "the frame did not arrive"
                time.sleep(0.005)
            time.sleep(FRAME_QUIET + 0.02)  # the frames stayed the same: the screen went still
            screen.snapshot()
            screen.snapshot()

        reads_after(rgb_frame(seq=0), 1)  # a new picture: the Compose window is read again
        assert session.tree.reads_by_reason == {ReadReason.ATTACH: 1, ReadReason.FRAME: 1}
        reads_after(rgb_frame(seq=1, status_color=(255, 255, 255)), 2)  # only the clock moved
        assert session.tree.reads_by_reason == {ReadReason.ATTACH: 1, ReadReason.FRAME: 1}
        assert conn.sent("snapshot")[1]["evict_event_less"] is True
        assert conn.sent("snapshot")[1]["idle_timeout_ms"] == 0
    finally:
        session.stop()


def _given_stream(controller: FakeController) -> Any:
    deadline = time.monotonic() + 5.0
    while not controller.given:
        assert time.monotonic() < deadline, "the session did not subscribe to frames"
        time.sleep(0.005)
    return controller.given[-1]
