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
import logging
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from pytest_mobile_agent.virtual.ui.pointers import MotionEvent

Handler = Callable[[], None]

log = logging.getLogger("pytest_mobile_agent.virtual")


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
    #: several pointers' MotionEvents (the touchscreen's multi-contact frames, ui/pointers.py)
    motions: list[MotionEvent] = field(default_factory=list)
    handled: threading.Event = field(default_factory=threading.Event)


class InputInbox:
    """Touches that reached the device and wait for the UI thread, each already stamped with its event
    time. Thread-safe and independent of the model's lock: the kernel stamps an input event when the
    device's driver takes it (evdev's `input_event` time), and InputReader reads it, whatever the
    app's UI thread is busy with; the app handles it later, at that time (MessageQueue by `when`)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._arrivals: list[_Arrival] = []

    def put(self, events: list[tuple[int, int, bool, float]], motions: list[MotionEvent] | None = None
            ) -> threading.Event:
        """Queue stamped touches; the event returned is set once the model handled them."""
        arrival = _Arrival(events, motions or [])
        with self._lock:
            self._arrivals.append(arrival)
        return arrival.handled

    def take(self) -> list[_Arrival]:
        with self._lock:
            arrivals, self._arrivals = self._arrivals, []
        return arrivals


class InputDispatcher:
    """One thread for the process that hands arrived touches to their UI models, as Android's
    InputDispatcher thread delivers input to the apps' windows. Started once, on the first touch: a
    submit never waits for a thread to start (`Thread.start` waits until the new thread runs, which a
    starved host can make long), so the reader of the next touch is not held up."""

    def __init__(self) -> None:
        self._work: queue.SimpleQueue[Handler] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def submit(self, handler: Handler) -> None:
        self._work.put(handler)
        if self._thread is None:
            with self._lock:
                if self._thread is None:
                    self._thread = threading.Thread(target=self._run, name="ui-input-dispatcher", daemon=True)
                    self._thread.start()

    def _run(self) -> None:
        while True:
            handler = self._work.get()
            try:
                handler()
            except Exception:  # one screen's bug must not stop every device's touchscreen
                log.exception("handing touches over failed")


DISPATCHER = InputDispatcher()
