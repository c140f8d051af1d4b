"""The lock order of docs/architecture.md ("Threads and locks"), kept by instrumented locks.

The connection, its writer and the session's event stream get locks that record, on each acquisition,
which of them the thread already holds. A flood of events, requests from several threads, frames and
the close then run on them; every nesting seen must follow LOCK_ORDER (outer first), so a change that
takes, say, the connection's state lock under its sink lock fails here before it deadlocks anywhere.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from pytest_mobile_agent.agent import connection as connection_module
from pytest_mobile_agent.agent.connection import Connection
from pytest_mobile_agent.session.events import EventStream
from pytest_mobile_agent.session.frames import FrameSource
from tests.support.scripted_agent import TOKEN, ScriptedAgent
from tests.support.session_fakes import FakeConnection, FakeController, rgb_frame

LOCK_ORDER = (
    "connection.state",  # Connection._lock: the HostSession, the waiters; never held across I/O or the sink
    "connection.sink",  # Connection._sink_lock: the sink and the events waiting for it
    "connection.last_events",  # Connection._last_events_lock: close()'s events for the reader
    "connection.writer",  # _Writer._cond: the bytes waiting to be written
    "frames.kept",  # FrameSource._lock: the kept frames and the count
    "session.events",  # EventStream._cond: the stream the mirror pulls from
)


class Ranked:
    """A lock that records, per thread, the ranked locks held when it is taken (edges outer -> inner)."""

    held = threading.local()
    edges: set[tuple[str, str]] = set()

    def __init__(self, name: str, inner: Any) -> None:
        assert name in LOCK_ORDER, name
        self.name = name
        self._inner = inner

    @classmethod
    def stack(cls) -> list[Ranked]:
        if not hasattr(cls.held, "stack"):
            cls.held.stack = []
        return cls.held.stack  # type: ignore[no-any-return]

    def acquire(self, blocking: bool = True, timeout: float = -1) -> bool:
        stack = self.stack()
        for outer in stack:
            if outer is not self:  # re-entering an RLock is no nesting
                Ranked.edges.add((outer.name, self.name))
        acquired = bool(self._inner.acquire(blocking, timeout))
        if acquired:
            stack.append(self)
        return acquired

    def release(self) -> None:
        stack = self.stack()
        for index in range(len(stack) - 1, -1, -1):
            if stack[index] is self:
                del stack[index]
                break
        self._inner.release()

    __enter__ = acquire

    def __exit__(self, *exc: object) -> None:
        self.release()

    # what threading.Condition asks of its lock
    def _is_owned(self) -> bool:
        return self in self.stack()

    def _release_save(self) -> Any:
        self.release()

    def _acquire_restore(self, state: Any) -> None:
        self.acquire()


def _ranked_condition(name: str) -> threading.Condition:
    return threading.Condition(Ranked(name, threading.Lock()))  # type: ignore[arg-type]


def inversions() -> list[tuple[str, str]]:
    rank = {name: i for i, name in enumerate(LOCK_ORDER)}
    return sorted((outer, inner) for outer, inner in Ranked.edges if rank[outer] >= rank[inner])


class RankedConnection(Connection):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._lock = Ranked("connection.state", threading.RLock())  # type: ignore[assignment]
        self._sink_lock = Ranked("connection.sink", threading.RLock())  # type: ignore[assignment]
        self._last_events_lock = Ranked("connection.last_events", threading.Lock())  # type: ignore[assignment]


class RankedWriter(connection_module._Writer):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._cond = _ranked_condition("connection.writer")


@pytest.fixture
def ranked(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    Ranked.edges = set()
    monkeypatch.setattr(connection_module, "_Writer", RankedWriter)
    yield


def test_the_checker_sees_an_inverted_nesting(ranked: None) -> None:
    state, sink = Ranked("connection.state", threading.RLock()), Ranked("connection.sink", threading.RLock())
    with state, sink:
        pass
    assert inversions() == []
    with sink, state:
        pass
    assert inversions() == [("connection.sink", "connection.state")]


def test_a_flood_requests_frames_and_the_close_take_the_locks_in_the_documented_order(ranked: None) -> None:
    agent = ScriptedAgent(handlers={"tap": lambda r: {"accepted": True}}).start()
    stream = EventStream()
    stream._cond = _ranked_condition("session.events")
    frames = FrameSource(FakeConnection(), FakeController(), put=stream.put)
    frames._lock = Ranked("frames.kept", threading.Lock())  # type: ignore[assignment]
    conn = RankedConnection.open(agent.host_end, TOKEN, timeout=2.0)
    stop, flood_over = threading.Event(), threading.Event()

    def flood() -> None:
        while not flood_over.is_set():
            for _ in range(20):
                agent.event("window_changed", {"window": 12})
            time.sleep(0.002)

    def requests() -> None:
        for _ in range(30):
            conn.request("tap", {"x": 1, "y": 1, "hold_ms": 0}, timeout=5.0)

    def drain() -> None:
        while not stop.is_set():
            stream.next_event(0.02)
            stream.drain()

    def show_frames() -> None:
        for n in range(30):
            frames.accept(rgb_frame(color=(n, n, n)))

    workers = [threading.Thread(target=f) for f in (flood, drain, requests, requests, requests, show_frames)]
    try:
        conn.set_sink(stream.sink)
        for worker in workers:
            worker.start()
        for worker in workers[2:]:
            worker.join(20.0)
        flood_over.set()
        workers[0].join(5.0)
        conn.close()  # with the reader still delivering what the flood left
    finally:
        flood_over.set()
        stop.set()
        for worker in workers[:2]:
            worker.join(5.0)
        agent.close()
    assert conn.closed
    assert ("connection.state", "connection.writer") in Ranked.edges  # the run did nest what it nests
    assert ("connection.sink", "session.events") in Ranked.edges
    assert inversions() == []
