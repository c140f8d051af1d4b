"""agent::connection::tests: the reader thread against an in-process scripted agent over a socketpair."""

from __future__ import annotations

import contextlib
import os
import resource
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from pytest_mobile_agent.agent.connection import Connection
from pytest_mobile_agent.agent.protocol import (
    Disconnection,
    Hint,
    HostSession,
    OutOfSync,
    ProtocolEvent,
    Resynced,
    encode,
)
from pytest_mobile_agent.errors import (
    AgentError,
    Disconnected,
    ProtocolError,
    Timeout,
    Unauthorized,
    VersionMismatch,
)
from tests.support.scripted_agent import TOKEN, AgentIdentity, Reply, ScriptedAgent


@pytest.fixture
def agents() -> Iterator[list[ScriptedAgent]]:
    started: list[ScriptedAgent] = []
    yield started
    for agent in started:
        agent.close()


@pytest.fixture
def connections() -> Iterator[list[Connection]]:
    opened: list[Connection] = []
    yield opened
    for conn in opened:
        conn.close()


def _serve(agents: list[ScriptedAgent], **kwargs: Any) -> ScriptedAgent:
    agent = ScriptedAgent(**kwargs).start()
    agents.append(agent)
    return agent


def _open(connections: list[Connection], agent: ScriptedAgent, token: str = TOKEN, **kwargs: Any) -> Connection:
    conn = Connection.open(agent.host_end, token, timeout=2.0, **kwargs)
    connections.append(conn)
    return conn


class Collect:
    def __init__(self) -> None:
        self.events: list[Any] = []
        self.cond = threading.Condition()

    def __call__(self, event: Any) -> None:
        with self.cond:
            self.events.append(event)
            self.cond.notify_all()

    def wait(self, count: int, timeout: float = 2.0) -> list[Any]:
        with self.cond:
            self.cond.wait_for(lambda: len(self.events) >= count, timeout)
            return list(self.events)


def test_replies_come_back_to_the_caller(agents, connections) -> None:
    agent = _serve(agents, handlers={"tap": lambda r: {"accepted": True, "echo": r["params"]}})
    conn = _open(connections, agent)
    assert conn.hello.version == "0.1.0" and conn.protocol == 1
    assert conn.request("tap", {"x": 540, "y": 1200, "hold_ms": 0}, timeout=1.0) == {
        "accepted": True, "echo": {"x": 540, "y": 1200, "hold_ms": 0}}
    (request,) = agent.frames("request")
    assert request["method"] == "tap" and request["deadline_ms"] == 1000 and request["id"] >= 1


def test_an_error_keeps_the_agents_code_message_and_retryability(agents, connections) -> None:
    agent = _serve(agents, handlers={"snapshot": lambda r: Reply.error("busy", "reading", retryable=True)})
    conn = _open(connections, agent)
    with pytest.raises(AgentError) as caught:
        conn.request("snapshot", {}, timeout=1.0)
    assert (caught.value.code, caught.value.agent_message, caught.value.retryable) == ("busy", "reading", True)
    assert "snapshot" in str(caught.value)


def test_concurrent_callers_each_get_their_own_response(agents, connections) -> None:
    holder: list[ScriptedAgent] = []

    def later(request: dict) -> object:  # answers out of order, from other threads
        delay = (8 - request["params"]["n"]) * 0.01
        threading.Timer(delay, lambda: holder[0].send(
            {"type": "response", "id": request["id"], "result": {"n": request["params"]["n"]}})).start()
        return Reply.NONE

    agent = _serve(agents, handlers={"key": later})
    holder.append(agent)
    conn = _open(connections, agent)
    results: dict[int, Any] = {}

    def call(n: int) -> None:
        results[n] = conn.request("key", {"n": n}, timeout=2.0)

    threads = [threading.Thread(target=call, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(3.0)
    assert results == {n: {"n": n} for n in range(8)}


def test_a_caller_fails_at_its_deadline_and_the_late_response_is_dropped(agents, connections) -> None:
    holder: list[ScriptedAgent] = []
    pending: list[dict] = []
    agent = _serve(agents, handlers={"screenshot": lambda r: (pending.append(r), Reply.NONE)[1],
                                     "key": lambda r: {"accepted": True}})
    holder.append(agent)
    conn = _open(connections, agent)
    started = time.monotonic()
    with pytest.raises(Timeout) as caught:
        conn.request("screenshot", {"format": "png"}, timeout=0.15)
    assert time.monotonic() - started < 1.0
    assert "screenshot" in str(caught.value) and "150 ms" in str(caught.value)
    agent.send({"type": "response", "id": pending[0]["id"], "result": {"late": True}})
    assert conn.request("key", {"code": 4}, timeout=1.0) == {"accepted": True}


def test_events_that_arrive_before_the_sink_are_replayed_to_it_in_order(agents, connections) -> None:
    def burst(agent: ScriptedAgent) -> None:
        for _ in range(3):
            agent.event()

    agent = _serve(agents, on_after_welcome=burst, handlers={"key": lambda r: {"accepted": True}})
    conn = _open(connections, agent)
    conn.request("key", {"code": 4}, timeout=1.0)  # the events were read before this response
    sink = Collect()
    conn.set_sink(sink)
    assert [e.seq for e in sink.wait(3)] == [1, 2, 3]
    agent.event()
    events = sink.wait(4)
    assert [e.seq for e in events] == [1, 2, 3, 4]
    assert all(isinstance(e, ProtocolEvent) and e.name == "window_changed" for e in events)


def test_a_sequence_gap_is_out_of_sync_then_resynced(agents, connections) -> None:
    agent = _serve(agents, handlers={"resync": lambda r: {"seq": 20}})
    conn = _open(connections, agent)
    sink = Collect()
    conn.set_sink(sink)
    agent.event(seq=1)
    agent.event(seq=3)
    events = sink.wait(4)
    assert events[:3] == [events[0], OutOfSync(expected=2, got=3), events[2]]
    assert events[3] == Resynced(20)


def test_pings_while_idle_keep_the_connection_and_agent_pings_are_answered(agents, connections) -> None:
    agent = _serve(agents)
    session = HostSession(token=TOKEN, ping_interval=0.05, liveness_timeout=1.0)
    conn = _open(connections, agent, session=session)
    assert agent.wait_for(lambda: len(agent.frames("ping")) >= 3, 2.0)
    nonces = [f["nonce"] for f in agent.frames("ping")]
    assert nonces == sorted(set(nonces))
    agent.send({"type": "ping", "nonce": 77})
    assert agent.wait_for(lambda: any(f.get("nonce") == 77 for f in agent.frames("pong")))
    assert not conn.closed


def test_a_silent_agent_is_declared_dead(agents, connections) -> None:
    agent = _serve(agents, answer_pings=False)
    session = HostSession(token=TOKEN, ping_interval=0.05, liveness_timeout=0.3)
    conn = _open(connections, agent, session=session)
    sink = Collect()
    conn.set_sink(sink)
    assert conn.wait_closed(2.0)
    (gone,) = sink.wait(1)
    assert isinstance(gone, Disconnection) and "silent" in gone.reason


def test_the_end_of_the_stream_is_a_disconnection_with_the_reconnect_hint(agents, connections) -> None:
    agent = _serve(agents, handlers={"snapshot": lambda r: Reply.NONE})
    conn = _open(connections, agent)
    sink = Collect()
    conn.set_sink(sink)
    failure: list[BaseException] = []

    def waiting_caller() -> None:
        try:
            conn.request("snapshot", {}, timeout=3.0)
        except BaseException as exc:  # noqa: BLE001 - the test inspects it
            failure.append(exc)

    caller = threading.Thread(target=waiting_caller)
    caller.start()
    assert agent.wait_for(lambda: bool(agent.frames("request")))
    started = time.monotonic()
    agent.hang_up()
    caller.join(2.0)
    assert time.monotonic() - started < 1.0
    assert isinstance(failure[0], Disconnected)
    assert failure[0].reconnect_hint == Hint.REATTACH.value
    (gone,) = sink.wait(1)
    assert isinstance(gone, Disconnection) and gone.reconnect_hint == Hint.REATTACH.value
    assert "stream ended" in gone.reason
    with pytest.raises(Disconnected):
        conn.request("tap", {"x": 1, "y": 1}, timeout=0.5)


def test_a_closing_frame_ends_the_connection_with_its_reason(agents, connections) -> None:
    agent = _serve(agents)
    conn = _open(connections, agent)
    sink = Collect()
    conn.set_sink(sink)
    agent.send({"type": "closing", "reason": "replaced"})
    (gone,) = sink.wait(1)
    assert gone.reconnect_hint == Hint.REPLACED.value and "replaced" in gone.reason
    assert conn.wait_closed(1.0)


def test_a_hello_with_another_token_is_refused(agents) -> None:
    agent = _serve(agents, identity=AgentIdentity(token="f" * 32))
    with pytest.raises(Unauthorized) as caught:
        Connection.open(agent.host_end, TOKEN, timeout=2.0)
    assert "unauthorized" in str(caught.value)
    assert TOKEN not in str(caught.value) and "f" * 32 not in str(caught.value)
    assert agent.ended.wait(1.0)
    assert [f["type"] for f in agent.received] == ["auth"]


def test_an_agent_speaking_only_an_older_protocol_is_refused_with_version_mismatch(agents) -> None:
    agent = _serve(agents, identity=AgentIdentity(protocols=(0,)))
    with pytest.raises(VersionMismatch, match=r"protocols \[0\]"):
        Connection.open(agent.host_end, TOKEN, timeout=2.0)
    assert agent.refused.wait(1.0)
    assert agent.frames("refuse") == [{"type": "refuse", "code": "version_mismatch",
                                        "message": "host speaks protocols [1]"}]


def test_a_handshake_without_an_answer_fails_at_its_deadline(agents) -> None:
    agent = ScriptedAgent()  # never started: nobody answers
    agents.append(agent)
    started = time.monotonic()
    with pytest.raises(Timeout, match="handshake"):
        Connection.open(agent.host_end, TOKEN, timeout=0.2)
    assert time.monotonic() - started < 1.0


def test_garbage_from_the_agent_is_a_protocol_error_in_the_handshake(agents) -> None:
    agent = ScriptedAgent()
    agents.append(agent)
    agent.send_raw(b"\x00\x00\x00\x05hello")
    with pytest.raises(ProtocolError):
        Connection.open(agent.host_end, TOKEN, timeout=1.0)


def test_close_stops_the_reader_and_reports_the_disconnection(agents, connections) -> None:
    agent = _serve(agents)
    conn = _open(connections, agent)
    sink = Collect()
    conn.set_sink(sink)
    conn.close()
    assert conn.closed
    assert isinstance(sink.wait(1)[0], Disconnection)
    assert agent.ended.wait(1.0)
    assert conn._thread is not None and not conn._thread.is_alive()


# --- under stalls (issue 19): descriptors past select()'s limit, writes the agent does not drain,
# --- and the order of the last events at close

FD_SETSIZE = 1024


@contextlib.contextmanager
def descriptors_taken(count: int) -> Iterator[None]:
    """`count` descriptors open in this process, so the next socket gets a number above them."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = count + 256
    if soft < wanted:
        if hard != resource.RLIM_INFINITY and hard < wanted:
            pytest.skip(f"this host allows {hard} open files; the test needs {wanted}")
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
    opened = [os.open(os.devnull, os.O_RDONLY) for _ in range(count)]
    try:
        yield
    finally:
        for fd in opened:
            os.close(fd)
        if soft < wanted:
            resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_a_silent_agent_on_a_descriptor_past_1024_is_declared_dead_for_its_silence(agents, connections) -> None:
    """Item 7: select() cannot watch a descriptor >= FD_SETSIZE; with 1,100 open, a silent agent was
    declared dead after the 10 s io deadline, as "stream ended"."""
    with descriptors_taken(1100):
        agent = _serve(agents, answer_pings=False)
        assert agent.host_end.fileno() >= FD_SETSIZE
        session = HostSession(token=TOKEN, ping_interval=0.05, liveness_timeout=0.3)
        conn = _open(connections, agent, session=session)
        sink = Collect()
        conn.set_sink(sink)
        assert conn.wait_closed(3.0)
        (gone,) = sink.wait(1)
        assert isinstance(gone, Disconnection) and "silent" in gone.reason


def test_a_write_the_agent_does_not_drain_holds_up_neither_reading_nor_other_callers(agents, connections) -> None:
    """Item 8: a sendall blocked on a full socket buffer held the lock the reader needs."""
    release = threading.Event()
    agent = _serve(agents, handlers={"hold": lambda r: (release.wait(10.0), {})[1],
                                     "big": lambda r: {}, "tap": lambda r: {"accepted": True}})
    conn = _open(connections, agent)
    sink = Collect()
    conn.set_sink(sink)
    results: dict[str, Any] = {}

    def call(name: str, method: str, params: dict[str, Any]) -> None:
        results[name] = conn.request(method, params, timeout=8.0)

    holder = threading.Thread(target=call, args=("hold", "hold", {}))
    holder.start()  # the agent's only reader now waits in the handler: it reads nothing more
    assert agent.wait_for(lambda: bool(agent.frames("request")))
    writer = threading.Thread(target=call, args=("big", "big", {"blob": "x" * (8 << 20)}))
    writer.start()  # 8 MiB do not fit the socket buffers: this write blocks until the agent reads
    time.sleep(0.3)
    try:
        started = time.monotonic()
        agent.event("window_changed", {"window": 12})
        events = sink.wait(1, timeout=2.0)
        delivered_in = time.monotonic() - started
        assert [type(e) for e in events] == [ProtocolEvent]
        assert delivered_in < 1.0  # the reader went on while the write waited
        assert writer.is_alive()  # the write was indeed still blocked
    finally:
        release.set()
        holder.join(10.0)
        writer.join(10.0)
    assert results == {"hold": {}, "big": {}}


def test_close_delivers_the_disconnection_after_the_readers_batch(agents, connections) -> None:
    """Item 11: close() delivered Disconnection on the caller's thread while the reader was still
    delivering its batch."""
    agent = _serve(agents)
    conn = _open(connections, agent)
    entered, proceed = threading.Event(), threading.Event()
    got: list[tuple[Any, str]] = []

    def sink(event: Any) -> None:
        got.append((event, threading.current_thread().name))
        if isinstance(event, ProtocolEvent) and event.seq == 1:
            entered.set()
            proceed.wait(2.0)

    conn.set_sink(sink)
    agent.send_raw(b"".join(encode({"type": "event", "seq": seq, "name": "window_changed", "data": {"window": 12}})
                            for seq in (1, 2, 3)))
    assert entered.wait(2.0)
    closer = threading.Thread(target=conn.close, name="closer")
    closer.start()
    time.sleep(0.2)
    proceed.set()
    closer.join(5.0)
    kinds = [(type(event).__name__, getattr(event, "seq", None)) for event, _ in got]
    assert kinds == [("ProtocolEvent", 1), ("ProtocolEvent", 2), ("ProtocolEvent", 3), ("Disconnection", None)]
    assert got[-1][1] == got[0][1]  # on the reader's thread, like every event before it
    assert conn.closed
