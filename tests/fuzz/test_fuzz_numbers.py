"""Numbers at every field of a request, out of range or not (issue 13, item 8).

`deadline_ms: 10**400` (valid JSON) used to raise OverflowError in the agent double outside its
try block: the request was never answered, against protocol.md's "MUST answer every request
exactly once". Protocol 1's integers are a Java long; Android's org.json reads an integer literal
past it as a double, so both agents take one for a number that is not an integer. Here every
numeric field of every method (and the frame's `id` and `deadline_ms`) gets integers near every
bound, past a long, of 401 and 5,001 digits, and floats (`1.0`, `1e400`, `-0.0`): a value out of the
field's range is `invalid_params`, answered exactly once (an `id` that is no positive long is a
protocol error: there is nothing to answer); the agent serves on. The host codec refuses the same
values before sending. With javac, the Java agent on the host JVM gets the same frames and must
give the same verdicts.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from pytest_mobile_agent import errors
from pytest_mobile_agent.agent import protocol as wire
from pytest_mobile_agent.agent.protocol import INT_MAX, INT_MIN, HostSession, State
from tests.fuzz.bounds import ends_within, lighter
from tests.support.java_agent import needs_java, start_java_agent
from tests.support.lab import bench

INT = 2**31 - 1
LONG = 2**63 - 1
GESTURE, IDLE = 60_000, 600_000
BASE_DEADLINE_MS = 400
# (method, base params, {field: (minimum, maximum)}): the Java agent's bounds (core/Agent.java, Params)
FIELDS: list[tuple[str, dict[str, Any], dict[str, tuple[int, int]]]] = [
    ("tap", {"x": 10, "y": 10, "hold_ms": 0}, {"x": (0, INT), "y": (0, INT), "hold_ms": (0, GESTURE)}),
    (
        "swipe",
        {"x1": 10, "y1": 10, "x2": 20, "y2": 20, "duration_ms": 8},
        {
            "x1": (0, INT),
            "y1": (0, INT),
            "x2": (0, INT),
            "y2": (0, INT),
            "duration_ms": (0, GESTURE),
            "rest_ms": (0, GESTURE),
        },
    ),
    ("key", {"code": 0}, {"code": (0, 10_000), "meta": (0, INT)}),
    (
        "snapshot",
        {"max_nodes": 0},
        {
            "idle_timeout_ms": (0, IDLE),
            "idle_quiet_ms": (0, IDLE),
            "max_nodes": (0, INT),
            "max_depth": (0, INT),
            "evict[0]": (-INT - 1, INT),
        },
    ),
    ("bounds", {"ids": []}, {"ids[0]": (-INT - 1, INT)}),
    ("screenshot", {"format": "jpeg", "quality": 1}, {"quality": (1, 100)}),
    ("text", {"node": 1, "text": "a", "method": "direct"}, {"node": (1, INT)}),
    ("toasts", {}, {"after": (0, LONG)}),
]
FRAME_FIELDS = {"id": (1, LONG), "deadline_ms": (0, LONG)}
ANY_ANSWER_IN_RANGE = {("text", "node")}  # a known node may refuse `direct` (invalid_params), rightly
BOUNDS = sorted({b + d for lo, hi in [r for _, _, f in FIELDS for r in f.values()] + list(FRAME_FIELDS.values())
                 for b in (lo, hi) for d in (-1, 0, 1)} | {INT_MIN - 1, INT_MIN, INT_MAX, INT_MAX + 1})
HUGE = [
    ("1" + "0" * 400, 10**400),
    ("-1" + "0" * 400, -(10**400)),
    ("1" + "0" * 5000, 10**5000),
]  # str() stops at 4,300 digits
FLOATS = ["1.0", "0.5", "-0.0", "1e3", "1E+2", "1e400", "-1e400", "5e-324", "2.5e10"]

# A number as (its JSON literal, its integer value or None when the literal is not an integer)
numbers = st.one_of(
    st.sampled_from(BOUNDS).map(lambda n: (str(n), n)),
    st.sampled_from(HUGE),
    st.integers(-(2**70), 2**70).map(lambda n: (str(n), n)),
    st.sampled_from(FLOATS).map(lambda f: (f, None)),
    st.floats(allow_nan=False, allow_infinity=False).map(lambda f: (repr(f), None)),
)


def _fields() -> list[tuple[str, str, tuple[int, int]]]:
    every = [(m, f, r) for m, _, fields in FIELDS for f, r in fields.items()]
    return every + [(m, f, r) for m, _, _ in FIELDS[:3] for f, r in FRAME_FIELDS.items()]


cases = st.tuples(st.sampled_from(_fields()), numbers)


def _frame(method: str, field: str, literal: str, request_id: int) -> bytes:
    """A request whose `field` is the literal's text, exactly (json.dumps would not write 1e400)."""
    params = dict(next(p for m, p, _ in FIELDS if m == method))
    marker = "__NUMBER__"
    message: dict[str, Any] = {"type": "request", "id": request_id, "method": method,
                               "deadline_ms": BASE_DEADLINE_MS, "params": params}
    if field in FRAME_FIELDS:
        message[field] = marker
    elif field.endswith("[0]"):
        params[field[:-3]] = [marker]
    else:
        params[field] = marker
    payload = json.dumps(message).replace(f'"{marker}"', literal).encode()
    return len(payload).to_bytes(4, "big") + payload


def _in_range(value: int | None, bounds: tuple[int, int]) -> bool:
    return value is not None and bounds[0] <= value <= bounds[1]


# --- the peers ------------------------------------------------------------------------------------


class Peer:
    """A raw host on one agent: a new connection per example (auth, welcome), frames out, the
    verdict back: ("answered", code or "result", times answered) or ("closed", reason)."""

    def __init__(self, open_stream: Any, token: str) -> None:
        self.open_stream = open_stream
        self.token = token

    def verdict(self, frame: bytes, request_id: int) -> tuple[str, str, int]:
        send, recv, close = self.open_stream()
        decoder = wire.FrameDecoder()
        try:
            send(wire.encode({"type": "auth", "token": self.token}))
            send(wire.encode({"type": "welcome", "protocol": 1, "host": "numbers"}))
            send(frame)
            answers: list[str] = []
            pinged = False
            while True:
                data = recv()
                if not data:
                    return ("closed", "end of stream", len(answers))
                for m in decoder.feed(data):
                    if m["type"] == "closing":
                        return ("closed", m["reason"], len(answers))
                    if m["type"] == "response" and m["id"] == request_id:
                        answers.append("result" if "result" in m else m["error"]["code"])
                    if m["type"] == "pong" and m["nonce"] == 77:
                        return ("answered", answers[0] if answers else "none", len(answers))
                if answers and not pinged:  # a second answer would come before the pong
                    send(wire.encode({"type": "ping", "nonce": 77}))
                    pinged = True
        finally:
            close()


@pytest.fixture(scope="module")
def double() -> Iterator[Peer]:
    with bench() as vd:
        vd.open("Login")
        attached = vd.attach()
        socket_name = attached.record.socket

        def open_stream() -> tuple[Any, Any, Any]:
            stream = vd.model.open_service(f"localabstract:{socket_name}", 2000)

            def recv() -> bytes:
                try:
                    return bytes(stream.recv(3.0))
                except errors.Timeout:
                    raise AssertionError("the agent neither answered nor closed within 3 s") from None

            return stream.send, recv, stream.close

        yield Peer(open_stream, attached.record.token)


@pytest.fixture(scope="module")
def java(classpath: str) -> Iterator[Peer]:  # noqa: F811
    agent = start_java_agent(classpath)

    def open_stream() -> tuple[Any, Any, Any]:
        sock = socket.create_connection(("127.0.0.1", agent.port), timeout=3.0)

        def recv() -> bytes:
            try:
                return sock.recv(1 << 20)
            except ConnectionResetError:
                return b""
            except TimeoutError:
                raise AssertionError("the Java agent neither answered nor closed within 3 s") from None

        return sock.sendall, recv, sock.close

    try:
        yield Peer(open_stream, agent.token)
    finally:
        agent.stop()


def _expected(field: str, value: int | None, bounds: tuple[int, int]) -> str:
    if _in_range(value, bounds):
        return "in range"
    return "protocol_error" if field == "id" else "invalid_params"


def _judged(verdict: tuple[str, str, int], method: str, field: str) -> str:
    kind, what, answers = verdict
    if kind == "closed":
        assert answers == 0, verdict
        return "protocol_error" if what == "protocol_error" else f"closed ({what})"
    assert answers == 1, f"answered {answers} times: {verdict}"
    assert what != "internal", verdict
    if what == "invalid_params" and (method, field) not in ANY_ANSWER_IN_RANGE:
        return "invalid_params"
    return "in range"


def _check(peer: Peer, case: Any) -> None:
    (method, field, bounds), (literal, value) = case
    answered_as = value if field == "id" and _in_range(value, bounds) else 5
    with ends_within():
        verdict = peer.verdict(_frame(method, field, literal, 5), answered_as)
    expected = _expected(field, value, bounds)
    if expected == "invalid_params" and (method, field) in ANY_ANSWER_IN_RANGE:
        assert verdict[:2] == ("answered", "invalid_params"), (method, field, literal[:40], verdict)
        return
    assert _judged(verdict, method, field) == expected, (method, field, literal[:40], verdict)


def _share(divisor: int) -> settings:
    """`lighter(divisor)`, for a property on a module's agent: a connection per example."""
    return settings(lighter(divisor), deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


@_share(3)
@given(cases)
@example(((("tap", "deadline_ms", (0, LONG))), (str(10**400), 10**400)))
@example(((("tap", "x", (0, INT))), (str(10**30), 10**30)))
@example(((("key", "code", (0, 10_000))), ("1e400", None)))
@example(((("tap", "id", (1, LONG))), (str(2**63), 2**63)))
@example(((("key", "deadline_ms", (0, LONG))), (str(LONG), LONG)))
def test_the_double_answers_every_number_at_every_field_once_out_of_range_invalid_params(double: Peer, case) -> None:
    _check(double, case)


@needs_java
@_share(10)
@given(cases)
@example(((("tap", "deadline_ms", (0, LONG))), (str(10**400), 10**400)))
@example(((("key", "deadline_ms", (0, LONG))), (str(LONG), LONG)))
@example(((("bounds", "ids[0]", (-INT - 1, INT))), (str(2**40), 2**40)))
def test_the_java_agent_gives_the_same_verdicts(java: Peer, case) -> None:
    _check(java, case)


# --- the host codec -------------------------------------------------------------------------------


def _established() -> HostSession:
    session = HostSession(token="0" * 32)
    session.start(0.0)
    hello = {"type": "hello", "agent": "mobile-agent-android", "version": "0.1.0", "build": "7fec0cb05341",
             "protocols": [1], "capabilities": [], "pid": 1, "socket": "s"}
    session.receive(wire.encode(hello), 0.0)
    session.take_outgoing()
    assert session.state is State.ESTABLISHED
    return session


@given(st.sampled_from([f for _, _, fields in FIELDS for f in fields]), numbers, st.booleans())
def test_the_host_codec_refuses_numbers_no_agent_can_read_before_sending(field, number, as_deadline) -> None:
    literal, value = number
    python_value: Any = value if value is not None else float(literal)
    session = _established()
    key = field.removesuffix("[0]")
    params = {key: [python_value] if field.endswith("[0]") else python_value}
    if as_deadline:  # an integer in a long (a negative one is a spent budget: 0), nothing else
        refused_expected = not (value is not None and INT_MIN <= value <= INT_MAX)
    else:  # a long, or a finite float (JSON; the agent judges its range)
        refused_expected = (value is not None and not INT_MIN <= value <= INT_MAX) or \
            (value is None and python_value in (float("inf"), float("-inf")))
    with ends_within():
        try:
            if as_deadline:
                session.request("tap", {}, python_value, 1.0)
            else:
                session.request("tap", params, 1000, 1.0)
        except errors.AgentError as refused:
            assert refused.code == "invalid_params" and "not sent" in refused.message
            assert session.take_outgoing() == b""
            assert refused_expected, (field, literal[:40], as_deadline)
            return
    assert not refused_expected, (field, literal[:40], as_deadline)
    sent = wire.decode(session.take_outgoing())
    assert sent["type"] == "request" and (as_deadline or sent["params"] == params)


@given(cases)
def test_the_host_codec_reads_an_integer_past_a_long_as_no_integer_as_org_json_does(case) -> None:
    (method, field, bounds), (literal, value) = case
    with ends_within():
        message = wire.decode(_frame(method, field, literal, 5))
    key = field.removesuffix("[0]")
    got = message[field] if field in FRAME_FIELDS else message["params"][key]
    got = got[0] if field.endswith("[0]") else got
    assert wire.is_integer(got) == (value is not None and INT_MIN <= value <= INT_MAX)
    if field == "id" and not _in_range(value, bounds):
        with pytest.raises(errors.ProtocolError):
            wire.validate(message)
    else:
        wire.validate(message)
