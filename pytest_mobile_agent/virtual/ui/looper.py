"""The UI model's message queue: input events and timers, each due at a model time (`when`), handled
in that order whatever order they were posted in.

This is what an Android app's Looper does with its MessageQueue (frameworks/base,
core/java/android/os/MessageQueue.java: `enqueueMessage` keeps the messages sorted by `when`,
`next` hands out the first one due, messages with the same `when` in the order they were posted).
An injected MotionEvent carries its own event time (MotionEvent.getEventTime), so a tap whose DOWN
and UP were queued together is handled as a tap even when the thread that handles them runs late:
the long-press check the DOWN posts (View.checkForLongClick, `postDelayed` by the long-press
timeout) falls due after the UP, which is already queued at its earlier time.

`InputInbox` holds touches from the touchscreen between their arrival and the app: the kernel stamps
an input event when its driver takes it, whatever the app is doing, so a lift that arrives while the
UI thread is busy keeps its own time and is handled before a long-press check due after it.
"""

from __future__ import annotations

import heapq
import itertools
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

Handler = Callable[[], None]


@dataclass(order=True)
class _Message:
    when: float
    seq: int
    handler: Handler = field(compare=False)


class MessageQueue:
    """Messages sorted by `when`, then by the order they were posted. Not thread-safe: the UI model
    holds its lock around every call."""

    def __init__(self) -> None:
        self._heap: list[_Message] = []
        self._seq = itertools.count()

    def __bool__(self) -> bool:
        return bool(self._heap)

    def post(self, when: float, handler: Handler) -> object:
        """Queue `handler` at `when`; returns the token `remove` takes."""
        message = _Message(when, next(self._seq), handler)
        heapq.heappush(self._heap, message)
        return message

    def remove(self, token: object) -> None:
        """Take a message off the queue before it falls due (Handler.removeCallbacks); a message
        already handled or removed is left alone."""
        for index, message in enumerate(self._heap):
            if message is token:
                self._heap[index] = self._heap[-1]
                self._heap.pop()
                heapq.heapify(self._heap)
                return

    def next_when(self) -> float | None:
        """When the first message falls due; None when the queue is empty."""
        return self._heap[0].when if self._heap else None

    def pop_due(self, now: float) -> Handler | None:
        """The first message due by `now`, taken off the queue; None when none is due."""
        if self._heap and self._heap[0].when <= now:
            return heapq.heappop(self._heap).handler
        return None


@dataclass
class _Arrival:
    events: list[tuple[int, int, bool, float]]
    handled: threading.Event = field(default_factory=threading.Event)


class InputInbox:
    """Touches that reached the device and wait for the UI thread, each already stamped with its event
    time. Thread-safe and independent of the model's lock: the kernel stamps an input event when the
    device's driver takes it (evdev's `input_event` time), and InputReader reads it, whatever the
    app's UI thread is busy with; the app handles it later, at that time (MessageQueue by `when`).
    `claim_worker` says whether the caller is to start the thread that hands the arrivals over."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._arrivals: list[_Arrival] = []
        self._worker = False

    def put(self, events: list[tuple[int, int, bool, float]]) -> threading.Event:
        """Queue stamped touches; the event returned is set once the model handled them."""
        arrival = _Arrival(events)
        with self._lock:
            self._arrivals.append(arrival)
        return arrival.handled

    def take(self) -> list[_Arrival]:
        with self._lock:
            arrivals, self._arrivals = self._arrivals, []
        return arrivals

    def claim_worker(self) -> bool:
        with self._lock:
            if self._worker:
                return False
            self._worker = True
            return True

    def release_worker(self) -> bool:
        """The worker ends unless arrivals came meanwhile (then it goes on: True)."""
        with self._lock:
            if self._arrivals:
                return True
            self._worker = False
            return False
