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
    stream = EventStream()
    stream.sink(ProtocolEvent(41, "window_changed", {"window": 12, "nodes": [57], "kinds": ["text"]}, 3.25))
    stream.sink(ProtocolEvent(42, "windows_changed", {"windows": [12, 31]}, 3.5))
    stream.sink(OutOfSync(expected=43, got=45))
    stream.sink(Resynced(seq=45))
    got = stream.drain()
    assert got == [
        b.ProtocolEvent(41, "window_changed", {"window": 12, "nodes": [57], "kinds": ["text"]}, 3.25),
        b.ProtocolEvent(42, "windows_changed", {"windows": [12, 31]}, 3.5),
        b.OutOfSync(expected=43, got=45),
        b.Resynced(seq=45),
    ]
    first, second = got[0], got[1]
    assert isinstance(first, b.ProtocolEvent) and first.window == 12 and first.windows == ()
    assert isinstance(second, b.ProtocolEvent) and second.window is None and second.windows == (12, 31)
    assert stream.drain() == [] and not stream.ended


def test_the_stream_carries_the_agents_own_event_classes() -> None:
    """One class per concept (issue 23, item 4): what the connection delivered is what the mirror
    reads, the very object, and the session's names are the agent layer's classes."""
    assert (b.ProtocolEvent, b.OutOfSync, b.Resynced, b.Disconnection) == (
        ProtocolEvent, OutOfSync, Resynced, Disconnection)
    stream = EventStream()
    event = ProtocolEvent(1, "window_changed", {"window": 12}, 3.25)
    stream.sink(event)
    assert stream.drain()[0] is event


def test_the_close_is_a_disconnection_with_a_reconnect_hint() -> None:
    stream = EventStream()
    stream.sink(Disconnection("the agent closed the connection (shutdown)", Hint.RELAUNCH))
    stream.sink(ProtocolEvent(1, "window_changed", {"window": 1}, 9.5))  # after the end: dropped
    assert stream.drain() == [
        b.Disconnection(
            reason="the agent closed the connection (shutdown)",
            reconnect_hint="the agent exited; attach again to launch a new one",
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
    assert isinstance(event, b.Disconnection) and event.reconnect_hint == Hint.REATTACH.value


def test_an_observer_sees_every_event_and_its_failure_stops_nothing() -> None:
    stream = EventStream()
    seen: list[b.SessionEvent] = []

    def broken(event: b.SessionEvent) -> None:
        raise RuntimeError("observer bug")

    stream.observe(broken)
    stream.observe(seen.append)
    stream.sink(Resynced(seq=3))
    assert [type(e) for e in seen] == [b.Resynced] and len(stream.drain()) == 1


# --- a stream nobody drains (issue 19 item 9) ------------------------------------------------------


def _frame(hash: int, at: float) -> b.FrameEvent:
    return b.FrameEvent(hash=hash, captured_at=at, received_at=at, seq=0, width=540, height=1200)


def _event(seq: int, at: float = 1.0) -> b.ProtocolEvent:
    return b.ProtocolEvent(seq, "window_changed", {"window": 12}, at)


def test_frames_no_one_reads_keep_only_the_latest_and_push_out_nothing() -> None:
    """At 60 fps, frames alone filled the 10k cap in 167 s and pushed out OutOfSync and Resynced."""
    stream = EventStream()
    stream.put(_event(1))
    stream.sink(OutOfSync(expected=2, got=5))
    stream.sink(Resynced(seq=9))
    for n in range(20_000):
        stream.put(_frame(hash=n % 3, at=10.0 + n / 60))
    stream.put(_event(10))
    stream.put(_frame(hash=7, at=400.0))
    got = stream.drain()
    assert got == [_event(1), b.OutOfSync(expected=2, got=5), b.Resynced(seq=9), _event(10),
                   _frame(hash=7, at=400.0)]


def test_an_overflow_leaves_a_marker_in_place_of_the_events_left_out_and_keeps_every_notice() -> None:
    """A flood dropped 83 % of the events with no marker."""
    from pytest_mobile_agent.session.events import MAX_QUEUED

    stream = EventStream()
    for seq in range(1, MAX_QUEUED + 501):
        stream.put(_event(seq, at=float(seq)))
    stream.sink(OutOfSync(expected=1, got=9))  # past the cap: kept all the same
    stream.put(_event(MAX_QUEUED + 600))
    stream.sink(Disconnection("killed"))
    got = stream.drain()
    kept = [e for e in got if isinstance(e, b.ProtocolEvent)]
    assert kept == [_event(seq, at=float(seq)) for seq in range(1, MAX_QUEUED + 1)]  # the oldest stay, in order
    lost = [e for e in got if isinstance(e, b.EventsLost)]
    assert lost == [b.EventsLost(count=501, at=float(MAX_QUEUED + 1))]
    assert got.index(lost[0]) == MAX_QUEUED  # where the first left out would have been
    assert isinstance(got[-2], b.OutOfSync) and isinstance(got[-1], b.Disconnection)
    stream2 = EventStream()
    stream2.put(_event(1))
    assert stream2.drain() == [_event(1)]  # no overflow, no marker
