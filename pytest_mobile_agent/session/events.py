"""The event stream: the connection's events and the controller's frames, in arrival order.

The connection's sink runs on its reader thread; the frame task on its own thread. Both put onto
one stream the mirror pulls from. Protocol events, OutOfSync and Resynced pass through as
themselves with the host time; the close becomes Disconnected with the reconnect hint, after which
the stream ends (nothing more is put on it).

A mirror that stops reading must not grow the stream without bound, nor lose anything silently:
a frame nobody read yet is replaced by the next one (which carries the time of the latest change,
`Frame.changed_at`), so frames never pile up; OutOfSync, Resynced and Disconnected are always kept;
protocol events past MAX_QUEUED are left out, and one EventsLost marker in their place says how
many, so the mirror reads everything again.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from pytest_mobile_agent.session.backends import (
    Disconnected,
    EventsLost,
    Frame,
    OutOfSync,
    ProtocolEvent,
    Resynced,
    SessionEvent,
)

log = logging.getLogger("pytest_mobile_agent.session")

DEFAULT_RECONNECT_HINT = "attach again to relaunch or reuse the agent"
MAX_QUEUED = 10_000
"""Protocol events kept for a mirror that stops reading; later ones are counted in EventsLost."""


class _Lost:
    """Where the protocol events left out would be: becomes EventsLost when taken."""

    def __init__(self, at: float) -> None:
        self.at = at
        self.count = 0


class EventStream:
    """The EventBackend: a thread-safe queue with one end (Disconnected)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._queue: deque[SessionEvent | _Lost] = deque()
        self._events = 0  # the protocol events queued
        self._lost: _Lost | None = None  # the marker in the queue while protocol events are left out
        self._frame: Frame | None = None  # the one frame in the queue that is not stale
        self._cond = threading.Condition()
        self._ended: Disconnected | None = None
        self._observers: list[Callable[[SessionEvent], None]] = []

    @property
    def ended(self) -> bool:
        return self._ended is not None

    @property
    def disconnection(self) -> Disconnected | None:
        return self._ended

    def observe(self, observer: Callable[[SessionEvent], None]) -> None:
        """Call `observer` with every event as it is put (on the putting thread)."""
        self._observers.append(observer)

    def put(self, event: SessionEvent) -> None:
        with self._cond:
            if self._ended is not None:
                return
            if isinstance(event, Disconnected):
                self._ended = event
            self._enqueue(event)
            self._cond.notify_all()
        for observer in self._observers:
            try:
                observer(event)
            except Exception:  # an observer's bug must not stop the reader thread
                log.exception("event observer failed")

    def next_event(self, timeout: float) -> SessionEvent | None:
        deadline = time.monotonic() + max(0.0, timeout)  # real time: the injected clock only stamps
        with self._cond:
            while True:
                while self._queue:
                    event = self._take()
                    if event is not None:
                        return event
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self._cond.wait(left)

    def drain(self) -> list[SessionEvent]:
        with self._cond:
            events = []
            while self._queue:
                event = self._take()
                if event is not None:
                    events.append(event)
            return events

    # --- the queue (its condition held) --------------------------------------------------------------

    def _enqueue(self, event: SessionEvent) -> None:
        if isinstance(event, Frame):
            if self._frame is not None and self._queue and self._queue[-1] is self._frame:
                self._queue[-1] = event  # the unread frame, replaced in place
            else:
                self._queue.append(event)  # an unread frame further back is stale now: skipped
            self._frame = event
        elif isinstance(event, ProtocolEvent):
            if self._events < MAX_QUEUED:
                self._events += 1
                self._queue.append(event)
                return
            if self._lost is None:
                self._lost = _Lost(event.at)
                self._queue.append(self._lost)
            self._lost.count += 1
        else:
            self._queue.append(event)  # the notices and the end: never left out

    def _take(self) -> SessionEvent | None:
        """The next event; None for a stale frame."""
        item = self._queue.popleft()
        if isinstance(item, _Lost):
            self._lost = None
            return EventsLost(count=item.count, at=item.at)
        if isinstance(item, ProtocolEvent):
            self._events -= 1
        elif isinstance(item, Frame):
            if item is not self._frame:
                return None
            self._frame = None
        return item

    def sink(self, event: Any) -> None:
        """The connection's EventSink: convert an agent event and put it."""
        converted = convert(event, self._clock())
        if converted is None:
            log.debug("ignoring an agent event of an unknown kind: %r", event)
            return
        self.put(converted)


def convert(event: Any, now: float) -> SessionEvent | None:
    """An agent event (agent.ProtocolEvent, OutOfSync, Resynced, Disconnection) as a session event."""
    at = getattr(event, "received_at", None)
    at = at if isinstance(at, (int, float)) else now
    if hasattr(event, "reconnect_hint"):
        hint = getattr(event.reconnect_hint, "value", event.reconnect_hint)  # agent.protocol.Hint
        return Disconnected(
            reason=str(getattr(event, "reason", "closed")),
            reconnect_hint=str(hint or DEFAULT_RECONNECT_HINT),
            at=at,
        )
    if hasattr(event, "expected") and hasattr(event, "got"):
        return OutOfSync(expected=int(event.expected), got=int(event.got), at=at)
    if hasattr(event, "name") and hasattr(event, "seq"):
        data = getattr(event, "data", None) or {}
        return ProtocolEvent(seq=int(event.seq), name=str(event.name), data=dict(data), at=at)
    if hasattr(event, "seq"):
        return Resynced(seq=int(event.seq), at=at)
    return None
