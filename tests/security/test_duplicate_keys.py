"""A key named twice in a frame is refused, never last-wins (issue 13, item 11).

`{"type": "auth", "token": WRONG, "token": RIGHT}` was accepted: Python's json and Android's org.json
both keep the last value, so a filter that read the first (a proxy, a log scrubber, a reviewer)
and the agent disagreed on what was sent. docs/protocol.md section 1 now says a duplicate key is a
protocol error. Both agents refuse it in every frame (the auth frame first of all) with a
`closing` `protocol_error` and no hello; the host codec refuses it in the handshake's frames.
"""

from __future__ import annotations

import socket
import struct
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from pytest_mobile_agent import errors
from pytest_mobile_agent.agent import protocol as wire
from pytest_mobile_agent.agent.connection import Connection
from pytest_mobile_agent.agent.protocol import HostSession, State
from tests.support.java_agent import needs_java, start_java_agent
from tests.support.lab import Bench

WRONG = "f" * 32


def _raw(text: str) -> bytes:
    payload = text.encode()
    return struct.pack(">I", len(payload)) + payload


def _auths(token: str) -> list[str]:
    """Auth frames naming `token` twice over, the right one last or first, or spelled with an escape."""
    return [
        f'{{"type":"auth","token":"{WRONG}","token":"{token}"}}',
        f'{{"type":"auth","token":"{token}","token":"{WRONG}"}}',
        f'{{"type":"auth","token":"{WRONG}","t\\u006fken":"{token}"}}',
        f'{{"type":"auth","type":"auth","token":"{token}"}}',
    ]


Exchange = Callable[[bytes, bytes], list[dict[str, Any]]]


def _all_frames(recv: Callable[[], bytes], send: Callable[[bytes], Any], then: bytes) -> list[dict[str, Any]]:
    """Every frame until the end of the stream; `then` is sent once the first frame came."""
    decoder, seen = wire.FrameDecoder(unique_keys=False), []
    while data := recv():
        seen.extend(decoder.feed(data))
        if seen and then:
            send(then)
            then = b""
    return seen


def _double_exchange(vd: Bench, socket_name: str) -> Exchange:
    def exchange(data: bytes, then: bytes) -> list[dict[str, Any]]:
        stream = vd.model.open_service(f"localabstract:{socket_name}", 2000)
        try:
            stream.send(data)
            return _all_frames(lambda: stream.recv(5.0), stream.send, then)
        finally:
            stream.close()

    return exchange


@pytest.fixture(scope="module")
def java_agent(classpath: str) -> Iterator[Any]:  # noqa: F811
    agent = start_java_agent(classpath)
    try:
        yield agent
    finally:
        agent.stop()


def _java_exchange(agent: Any) -> Exchange:
    def exchange(data: bytes, then: bytes) -> list[dict[str, Any]]:
        with socket.create_connection(("127.0.0.1", agent.port), timeout=5.0) as sock:
            sock.sendall(data)

            def recv() -> bytes:
                try:
                    return sock.recv(65536)
                except ConnectionResetError:
                    return b""

            return _all_frames(recv, sock.sendall, then)

    return exchange


def _assert_refused(exchange: Exchange, token: str) -> None:
    for auth in _auths(token):
        seen = exchange(_raw(auth), b"")
        assert [m["type"] for m in seen] == ["closing"], (auth, seen)
        assert seen[0]["reason"] == "protocol_error"
    welcomed = exchange(
        _raw(f'{{"type":"auth","token":"{token}"}}'),
        wire.encode({"type": "welcome", "protocol": 1, "host": "t"})
        + _raw('{"type":"request","id":1,"id":2,"method":"bounds","deadline_ms":1000,"params":{"ids":[]}}'),
    )
    kinds = [m["type"] for m in welcomed]
    assert kinds[0] == "hello" and kinds[-1] == "closing" and welcomed[-1]["reason"] == "protocol_error", welcomed
    assert "response" not in kinds  # neither id is answered: the frame is not read at all


def test_the_double_refuses_an_auth_frame_naming_a_key_twice_and_serves_on(vd: Bench) -> None:
    attached = vd.attach()
    _assert_refused(_double_exchange(vd, attached.record.socket), attached.record.token)
    with Connection.open(vd.device.open_abstract(attached.record.socket), attached.record.token, timeout=2.0) as conn:
        assert conn.request("bounds", {"ids": []}, timeout=2.0) == {"nodes": []}  # still serving


@needs_java
def test_the_java_agent_refuses_it_the_same_way(java_agent: Any) -> None:
    _assert_refused(_java_exchange(java_agent), java_agent.token)
    with java_agent.connect() as conn:  # still serving
        assert conn.request("bounds", {"ids": []}, timeout=5.0) == {"nodes": []}


def test_the_host_codec_refuses_a_duplicate_key_in_the_handshake() -> None:
    with pytest.raises(errors.ProtocolError, match="'token' twice"):
        wire.decode_payload(f'{{"type":"auth","token":"{WRONG}","token":"x"}}'.encode())
    with pytest.raises(errors.ProtocolError, match="twice"):
        wire.decode_payload(b'{"type":"x","a":{"b":1,"b":2}}')  # at any depth
    session = HostSession(token="0" * 32)
    session.start(0.0)
    hello = ('{"type":"hello","agent":"mobile-agent-android","version":"0.1.0","build":"7fec0cb05341",'
             '"protocols":[1],"protocols":[2],"capabilities":[],"pid":1,"socket":"s"}')
    session.receive(_raw(hello), 0.0)
    assert session.state is State.CLOSED and isinstance(session.failure, errors.ProtocolError)
    assert "twice" in str(session.failure)
