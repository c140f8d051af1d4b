"""session::events::tests: what the connection delivers reaches the stream as itself."""

from __future__ import annotations

import threading

from pytest_mobile_agent.agent.protocol import (
    Disconnection,
    Hint,
    OutOfSync,
    ProtocolEvent,
    Resynced,
)
from pytest_mobile_agent.session import backends as b
from pytest_mobile_agent.session.events import EventStream


def test_protocol_events_and_sequence_notices_pass_through() -> None:
    stream = EventStream(clock=lambda: 7.5)
    stream.sink(ProtocolEvent(41, "window_changed", {"window": 12, "nodes": [57], "kinds": ["text"]}, 3.25))
    stream.sink(ProtocolEvent(42, "windows_changed", {"windows": [12, 31]}, 3.5))
    stream.sink(OutOfSync(expected=43, got=45))
    stream.sink(Resynced(seq=45))
    got = stream.drain()
    assert got == [
        b.ProtocolEvent(41, "window_changed", {"window": 12, "nodes": [57], "kinds": ["text"]}, 3.25),
        b.ProtocolEvent(42, "windows_changed", {"windows": [12, 31]}, 3.5),
        b.OutOfSync(expected=43, got=45, at=7.5),
        b.Resynced(seq=45, at=7.5),
    ]
    first, second = got[0], got[1]
    assert isinstance(first, b.ProtocolEvent) and first.window == 12 and first.windows == ()
    assert isinstance(second, b.ProtocolEvent) and second.window is None and second.windows == (12, 31)
    assert stream.drain() == [] and not stream.ended


def test_the_close_is_a_disconnection_with_a_reconnect_hint() -> None:
    stream = EventStream(clock=lambda: 9.0)
    stream.sink(Disconnection("the agent closed the connection (shutdown)", Hint.RELAUNCH))
    stream.sink(ProtocolEvent(1, "window_changed", {"window": 1}, 9.5))  # after the end: dropped
    assert stream.drain() == [
        b.Disconnected(
            reason="the agent closed the connection (shutdown)",
            reconnect_hint="the agent exited; attach again to launch a new one",
            at=9.0,
        )
    ]
    assert stream.ended and stream.disconnection is not None
    assert stream.next_event(0.01) is None


def test_a_waiting_reader_wakes_when_an_event_arrives() -> None:
    stream = EventStream()
    timer = threading.Timer(0.05, lambda: stream.sink(Disconnection("killed")))
    timer.start()
    try:
        event = stream.next_event(2.0)
    finally:
        timer.cancel()
    assert isinstance(event, b.Disconnected) and event.reconnect_hint == Hint.REATTACH.value


def test_an_observer_sees_every_event_and_its_failure_stops_nothing() -> None:
    stream = EventStream()
    seen: list[b.SessionEvent] = []

    def broken(event: b.SessionEvent) -> None:
        raise RuntimeError("observer bug")

    stream.observe(broken)
    stream.observe(seen.append)
    stream.sink(Resynced(seq=3))
    stream.sink(object())  # an event of a kind the session does not know is left out
    assert [type(e) for e in seen] == [b.Resynced] and len(stream.drain()) == 1
