"""The loopback bridge against a scripted device whose abstract socket leads to an echo server on
loopback: bytes relayed both ways, the device's end ending the client's connection (never a hang),
a refused socket, the close, and no Nagle delay on the relayed connections."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator

import pytest

from pytest_mobile_agent.web.bridge import Bridge
from tests.support.web_peer import LoopbackDevice

NAME = "webview_devtools_remote_77"


@pytest.fixture
def echo_port() -> Iterator[int]:
    """A server echoing each connection's bytes back, upper-cased."""
    server = socket.create_server(("127.0.0.1", 0))

    def serve(conn: socket.socket) -> None:
        with conn:
            while data := conn.recv(65536):
                conn.sendall(data.upper())

    def accept() -> None:
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            threading.Thread(target=serve, args=(conn,), daemon=True).start()
    threading.Thread(target=accept, daemon=True).start()
    yield server.getsockname()[1]
    server.close()


@pytest.fixture
def device(echo_port: int) -> LoopbackDevice:
    device = LoopbackDevice()
    device.serve(NAME, echo_port, 77, "com.example")
    return device


def test_each_connection_is_relayed_both_ways_through_its_own_stream(device: LoopbackDevice) -> None:
    bridge = Bridge(device, NAME)
    try:
        with socket.create_connection(("127.0.0.1", bridge.port), timeout=5) as one, \
                socket.create_connection(("127.0.0.1", bridge.port), timeout=5) as two:
            one.sendall(b"hello")
            two.sendall(b"there")
            assert (one.recv(100), two.recv(100)) == (b"HELLO", b"THERE")
            big = bytes(range(97, 123)) * 40_000
            one.sendall(big)
            got = b""
            while len(got) < len(big):
                got += one.recv(1 << 20)
            assert got == big.upper()
        assert len(device._open[NAME]) == 2
    finally:
        bridge.close()


def test_the_device_closing_its_socket_ends_the_clients_connection(device: LoopbackDevice) -> None:
    bridge = Bridge(device, NAME)
    try:
        with socket.create_connection(("127.0.0.1", bridge.port), timeout=5) as client:
            client.sendall(b"x")
            assert client.recv(10) == b"X"
            device.drop(NAME)
            assert client.recv(10) == b""  # the end, not a wait for the 5 s timeout
        assert bridge.lost == f"the device closed localabstract:{NAME}"
    finally:
        bridge.close()


def test_a_socket_the_device_refuses_ends_the_connection_saying_why(device: LoopbackDevice) -> None:
    device.drop(NAME)
    bridge = Bridge(device, NAME)
    try:
        with socket.create_connection(("127.0.0.1", bridge.port), timeout=5) as client:
            assert client.recv(10) == b""
        assert "the device refused localabstract:" in bridge.lost and "connection refused" in bridge.lost
    finally:
        bridge.close()


def test_relayed_connections_send_each_message_at_once(device: LoopbackDevice) -> None:
    # a CDP message is one small write; with Nagle's algorithm on, each waits for the ACK of the
    # last (a delayed ACK: 40 ms on Linux), which made a fill and a click through the bridge 4x slower
    bridge = Bridge(device, NAME)
    try:
        with socket.create_connection(("127.0.0.1", bridge.port), timeout=5) as client:
            client.sendall(b"x")
            assert client.recv(10) == b"X"
            [relay] = bridge._relays
            assert relay.client.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
    finally:
        bridge.close()


def test_the_close_stops_listening_and_ends_every_connection(device: LoopbackDevice) -> None:
    bridge = Bridge(device, NAME)
    client = socket.create_connection(("127.0.0.1", bridge.port), timeout=5)
    client.sendall(b"x")
    assert client.recv(10) == b"X"
    bridge.close()
    assert client.recv(10) == b""
    client.close()
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", bridge.port), timeout=1).close()
    assert bridge.connections == 0 and bridge.lost == ""
    assert not [t for t in threading.enumerate() if t.name.startswith("mobile-agent-web")]
