"""The event stream: the connection's events and the controller's frames, in arrival order.

The connection's sink runs on its reader thread; the frame task on its own thread. Both put onto
one stream the mirror pulls from. The connection's events (agent/protocol.py's ProtocolEvent,
OutOfSync, Resynced and Disconnection, each with what the host knew when it arrived) pass through
as themselves; the Disconnection ends the stream (nothing more is put on it).

A mirror that stops reading must not grow the stream without bound, nor lose anything silently:
a frame nobody read yet is replaced by the next one (which carries the time of the latest change,
`FrameEvent.changed_at`), so frames never pile up; OutOfSync, Resynced and Disconnection are always kept;
protocol events past MAX_QUEUED are left out, and one EventsLost marker in their place says how
many, so the mirror reads everything again.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable

from pytest_mobile_agent.agent.connection import ConnectionEvent
from pytest_mobile_agent.session.backends import (
    Disconnection,
    EventsLost,
    FrameEvent,
    ProtocolEvent,
    SessionEvent,
)

log = logging.getLogger("pytest_mobile_agent.session")

MAX_QUEUED = 10_000
"""Protocol events kept for a mirror that stops reading; later ones are counted in EventsLost."""


class _Lost:
    """Where the protocol events left out would be: becomes EventsLost when taken."""

    def __init__(self, at: float) -> None:
        self.at = at
        self.count = 0


class EventStream:
    """The EventBackend: a thread-safe queue with one end (the Disconnection)."""

    def __init__(self) -> None:
        self._queue: deque[SessionEvent | _Lost] = deque()
        self._events = 0  # the protocol events queued
        self._lost: _Lost | None = None  # the marker in the queue while protocol events are left out
        self._frame: FrameEvent | None = None  # the one frame in the queue that is not stale
        self._cond = threading.Condition()
        self._ended: Disconnection | None = None
        self._observers: list[Callable[[SessionEvent], None]] = []

    @property
    def ended(self) -> bool:
        return self._ended is not None

    @property
    def disconnection(self) -> Disconnection | None:
        return self._ended

    def observe(self, observer: Callable[[SessionEvent], None]) -> None:
        """Call `observer` with every event as it is put (on the putting thread)."""
        self._observers.append(observer)

    def put(self, event: SessionEvent) -> None:
        with self._cond:
            if self._ended is not None:
                return
            if isinstance(event, Disconnection):
                self._ended = event
            self._enqueue(event)
            self._cond.notify_all()
        for observer in self._observers:
            try:
                observer(event)
            except Exception:  # an observer's bug must not stop the reader thread
                log.exception("event observer failed")

    def next_event(self, timeout: float) -> SessionEvent | None:
        deadline = time.monotonic() + max(0.0, timeout)
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
        if isinstance(event, FrameEvent):
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
                self._lost = _Lost(event.received_at)
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
        elif isinstance(item, FrameEvent):
            if item is not self._frame:
                return None
            self._frame = None
        return item

    def sink(self, event: ConnectionEvent) -> None:
        """The connection's EventSink: its events are the stream's own (agent/protocol.py's classes)."""
        self.put(event)
