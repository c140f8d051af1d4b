"""The event stream: the connection's events and the controller's frames, in arrival order.

The connection's sink runs on its reader thread; the frame task on its own thread. Both put onto
one stream the mirror pulls from. Protocol events, OutOfSync and Resynced pass through as
themselves with the host time; the close becomes Disconnected with the reconnect hint, after which
the stream ends (nothing more is put on it).
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
    OutOfSync,
    ProtocolEvent,
    Resynced,
    SessionEvent,
)

log = logging.getLogger("pytest_mobile_agent.session")

DEFAULT_RECONNECT_HINT = "attach again to relaunch or reuse the agent"
MAX_QUEUED = 10_000
"""A mirror that stops reading must not grow the stream without bound; the oldest go first."""


class EventStream:
    """The EventBackend: a thread-safe queue with one end (Disconnected)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._queue: deque[SessionEvent] = deque(maxlen=MAX_QUEUED)
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
            self._queue.append(event)
            self._cond.notify_all()
        for observer in self._observers:
            try:
                observer(event)
            except Exception:  # an observer's bug must not stop the reader thread
                log.exception("event observer failed")

    def next_event(self, timeout: float) -> SessionEvent | None:
        deadline = time.monotonic() + max(0.0, timeout)  # real time: the injected clock only stamps
        with self._cond:
            while not self._queue:
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self._cond.wait(left)
            return self._queue.popleft()

    def drain(self) -> list[SessionEvent]:
        with self._cond:
            events = list(self._queue)
            self._queue.clear()
            return events

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
