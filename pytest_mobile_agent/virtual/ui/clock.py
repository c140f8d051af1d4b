"""The model clock: milliseconds for gestures, composition and flings, and the wall time shown.

`MonotonicClock` is the device's; tests inject a `ManualClock` to step composition and flings
deterministically.
"""

from __future__ import annotations

import threading
import time
from typing import Protocol


class Clock(Protocol):
    def now_ms(self) -> float:
        """A monotonic time in milliseconds."""
        ...

    def wall(self) -> float:
        """Seconds since the epoch, for the status bar clock."""
        ...


class MonotonicClock:
    def now_ms(self) -> float:
        return time.monotonic() * 1000.0

    def wall(self) -> float:
        return time.time()


class ManualClock:
    """A clock that moves only when told (thread-safe)."""

    def __init__(self, start_ms: float = 1_000_000.0, wall: float = 1_767_225_600.0) -> None:
        self._now = start_ms
        self._wall0 = wall
        self._start = start_ms
        self._lock = threading.Lock()

    def now_ms(self) -> float:
        with self._lock:
            return self._now

    def wall(self) -> float:
        with self._lock:
            return self._wall0 + (self._now - self._start) / 1000.0

    def advance(self, ms: float) -> None:
        with self._lock:
            self._now += ms
