"""1,000 pipelined requests: both agents keep 8 workers and answer the rest `busy` (issue 13, item 7).

The agent double used to start one thread per request (600 pipelined requests made +597 threads);
the Java agent runs requests on at most 8 workers (`server/Server.java`, a `ThreadPoolExecutor` over
a `SynchronousQueue`) and answers a request none can take `busy` at once (`server/Connection.java`).
Here the same 1,000 requests go to both in one write: snapshots that wait 2 s for an idle UI
(`idle_quiet_ms` far past their `idle_timeout_ms`, just after a key press; the last 992 with
`max_nodes: 0`, cheap to answer). Each agent must answer every id exactly once, the first 8 with a
result and the 992 others with `busy` ("every worker is busy", retryable), then serve again; the
double never runs more than 8 request threads (before: one per request).
"""

from __future__ import annotations

import socket
import threading
import time
from collections import Counter
from typing import Any, Protocol

import pytest

from pytest_mobile_agent import errors
from pytest_mobile_agent.agent import protocol as wire
from tests.support.java_agent import needs_java, start_java_agent
from tests.support.lab import Bench

SLOW, FAST = 8, 992
SLOW_PARAMS = {"idle_timeout_ms": 2000, "idle_quiet_ms": 600_000}


class Peer(Protocol):
    def send(self, data: bytes) -> Any: ...
    def recv(self, timeout: float) -> bytes: ...


class TcpPeer:
    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock

    def send(self, data: bytes) -> None:
        self.sock.sendall(data)

    def recv(self, timeout: float) -> bytes:
        self.sock.settimeout(timeout)
        try:
            return self.sock.recv(1 << 20)
        except TimeoutError:
            return b"\0"  # nothing yet (a frame never starts with a lone NUL: callers skip it)


class DevicePeer:
    """A stream of the virtual device (`open_service`), as a peer of uid 2000 reaches the agent."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream

    def send(self, data: bytes) -> None:
        self.stream.send(data)

    def recv(self, timeout: float) -> bytes:
        try:
            return bytes(self.stream.recv(timeout))
        except errors.Timeout:
            return b"\0"


def _request(request_id: int, method: str, params: dict[str, Any]) -> bytes:
    return wire.encode({"type": "request", "id": request_id, "method": method, "deadline_ms": 20_000, "params": params})


class Client:
    """A raw host: frames out, responses by id, pings answered (the agent's 3 s liveness)."""

    def __init__(self, peer: Peer, token: str) -> None:
        self.peer = peer
        self.decoder = wire.FrameDecoder()
        self.answers: Counter[int] = Counter()
        self.outcomes: dict[int, tuple[str, ...]] = {}
        peer.send(wire.encode({"type": "auth", "token": token}))
        assert self._next("hello")["type"] == "hello"
        peer.send(wire.encode({"type": "welcome", "protocol": 1, "host": "pipeline"}))

    def _next(self, kind: str, timeout: float = 10.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            for message in self._pending():
                if message["type"] == kind:
                    return message
            assert time.monotonic() < deadline, f"no {kind} within {timeout} s"

    def _pending(self) -> list[dict[str, Any]]:
        data = self.peer.recv(0.2)
        assert data, "the agent closed the connection"
        if data == b"\0":
            return []
        out = []
        for message in self.decoder.feed(data):
            if message["type"] == "ping":
                self.peer.send(wire.encode({"type": "pong", "nonce": message["nonce"]}))
            elif message["type"] == "response":
                self._record(message)
            out.append(message)
        return out

    def _record(self, message: dict[str, Any]) -> None:
        self.answers[message["id"]] += 1
        error = message.get("error")
        self.outcomes[message["id"]] = ("result",) if error is None else \
            (error["code"], error["message"], error["retryable"])

    def wait_answered(self, ids: range, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while not all(i in self.outcomes for i in ids):
            assert time.monotonic() < deadline, f"{sum(i in self.outcomes for i in ids)} of {len(ids)} answered"
            self._pending()


def _pipeline(peer: Peer, token: str, during: Any = None) -> dict[str, Any]:
    """The run, summarised: what each group of ids got, and how often any id was answered."""
    client = Client(peer, token)
    peer.send(_request(1, "key", {"code": 0}))  # KEYCODE_UNKNOWN: an action, so the UI is not quiet
    client.wait_answered(range(1, 2))
    batch = b"".join(_request(i, "snapshot", SLOW_PARAMS) for i in range(2, 2 + SLOW))
    batch += b"".join(
        _request(i, "snapshot", {**SLOW_PARAMS, "max_nodes": 0}) for i in range(2 + SLOW, 2 + SLOW + FAST)
    )
    peer.send(batch)
    if during is not None:
        during()
    last = 1 + SLOW + FAST
    client.wait_answered(range(2, last + 1))
    peer.send(_request(last + 1, "bounds", {"ids": []}))  # served again once the workers are free
    client.wait_answered(range(last + 1, last + 2))
    return {
        "key": client.outcomes[1],
        "snapshots": Counter(client.outcomes[i] for i in range(2, 2 + SLOW)),
        "the rest": Counter(client.outcomes[i] for i in range(2 + SLOW, last + 1)),
        "after": client.outcomes[last + 1],
        "answered more than once": [i for i, n in client.answers.items() if n != 1],
    }


EXPECTED = {
    "key": ("result",),
    "snapshots": Counter({("result",): SLOW}),
    "the rest": Counter({("busy", "every worker is busy", True): FAST}),
    "after": ("result",),
    "answered more than once": [],
}


def _double_run(vd: Bench) -> tuple[dict[str, Any], int]:
    attached = vd.attach()
    stream = vd.model.open_service(f"localabstract:{attached.record.socket}", 2000)
    before = threading.active_count()
    peak = [before]

    def sample() -> None:
        for _ in range(20):
            peak[0] = max(peak[0], threading.active_count())
            time.sleep(0.05)

    try:
        return _pipeline(DevicePeer(stream), attached.record.token, during=sample), peak[0] - before
    finally:
        stream.close()


def test_the_double_answers_1000_pipelined_requests_with_8_workers_and_busy(vd: Bench) -> None:
    summary, extra_threads = _double_run(vd)
    assert summary == EXPECTED
    assert extra_threads <= SLOW, f"{extra_threads} threads more while 1,000 requests were pipelined"


@needs_java
def test_the_java_agent_and_the_double_answer_1000_pipelined_requests_the_same_way(
    vd: Bench, classpath: str,  # noqa: F811
) -> None:
    agent = start_java_agent(classpath)
    try:
        java = _pipeline(TcpPeer(agent.stream()), agent.token)
    finally:
        agent.stop()
    double, _ = _double_run(vd)
    assert java == EXPECTED
    assert double == java


if __name__ == "__main__":  # pragma: no cover
    pytest.main([__file__, "-q"])
