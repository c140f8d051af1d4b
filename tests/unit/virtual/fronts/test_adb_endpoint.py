"""The adb-server front on raw sockets: the real server's replies, forwards, bad input."""

from __future__ import annotations

import contextlib
import socket
import struct
import time
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from pytest_mobile_agent.virtual.fronts.adb_endpoint import AdbServerEndpoint
from tests.support.scripted_device import ScriptedDevice
from tests.support.streams import read_socket_to_end


@pytest.fixture
def server(scripted_device: ScriptedDevice) -> Iterator[AdbServerEndpoint]:
    endpoint = AdbServerEndpoint(io_timeout=0.5)
    endpoint.add_device("emulator-5554", scripted_device)
    yield endpoint
    endpoint.stop()


@pytest.fixture
def two_devices() -> Iterator[tuple[AdbServerEndpoint, ScriptedDevice, ScriptedDevice]]:
    endpoint = AdbServerEndpoint(io_timeout=0.5)
    first, second = ScriptedDevice(), ScriptedDevice()
    endpoint.add_device("emulator-5554", first)
    endpoint.add_device("emulator-5556", second)
    yield endpoint, first, second
    endpoint.stop()


def connect(server: AdbServerEndpoint) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=2.0)
    return sock


def request(sock: socket.socket, text: str | bytes) -> None:
    data = text.encode() if isinstance(text, str) else text
    sock.sendall(b"%04x" % len(data) + data)


def fail(text: str) -> bytes:
    """FAIL and the length-prefixed text, as the server writes it."""
    return b"FAIL" + b"%04x" % len(text.encode()) + text.encode()


def query(server: AdbServerEndpoint, text: str | bytes) -> bytes:
    with connect(server) as sock:
        request(sock, text)
        return read_socket_to_end(sock)


def test_host_version_is_0029(server: AdbServerEndpoint) -> None:
    assert query(server, "host:version") == b"OKAY00040029"


def test_devices_l_has_the_real_servers_format(server: AdbServerEndpoint) -> None:
    line = (
        "emulator-5554          device product:sdk_gphone64_x86_64 model:sdk_gphone64_x86_64 "
        "device:emu64x transport_id:1\n"
    )
    assert query(server, "host:devices-l") == b"OKAY" + b"%04x" % len(line) + line.encode()
    assert query(server, "host:devices") == b"OKAY0015emulator-5554\tdevice\n"


def test_features_are_the_devices_for_the_one_device_and_by_serial(server: AdbServerEndpoint) -> None:
    for req in ("host:features", "host-serial:emulator-5554:features"):
        reply = query(server, req)
        assert reply.startswith(b"OKAY")
        features = reply[8:].decode().split(",")
        assert "shell_v2" in features and "cmd" in features
        assert not [f for f in features if f.endswith(("brotli", "lz4", "zstd")) or f == "delayed_ack"]


def test_host_features_are_adbds_in_its_order_less_the_device_only_ones(server: AdbServerEndpoint) -> None:
    reply = query(server, "host:host-features")
    assert reply[:4] == b"OKAY" and int(reply[4:8], 16) == len(reply) - 8
    assert reply[8:].decode().split(",") == [
        "shell_v2", "cmd", "stat_v2", "ls_v2", "fixed_push_mkdir", "apex", "abb",
        "fixed_push_symlink_timestamp", "abb_exec", "remount_shell", "push_sync",
    ]


def test_a_missing_serial_gets_the_servers_text(server: AdbServerEndpoint) -> None:
    message = b"device 'emulator-9999' not found"
    expected = b"FAIL" + b"%04x" % len(message) + message
    assert query(server, "host:transport:emulator-9999") == expected
    assert query(server, "host-serial:emulator-9999:features") == expected
    assert query(server, "host:tport:serial:emulator-9999") == expected
    assert query(server, "host-serial:emulator-9999:forward:tcp:0;tcp:1") == expected


def test_no_device_and_more_than_one_device_get_the_servers_texts(
    two_devices: tuple[AdbServerEndpoint, ScriptedDevice, ScriptedDevice],
) -> None:
    endpoint, _, _ = two_devices
    assert query(endpoint, "host:transport-any") == fail("more than one device/emulator")
    empty = AdbServerEndpoint(io_timeout=0.5)
    try:
        assert query(empty, "host:features") == fail("no devices/emulators found")
        assert query(empty, "host:devices-l") == b"OKAY0000"
    finally:
        empty.stop()


def test_unknown_host_service_and_a_service_without_transport(server: AdbServerEndpoint) -> None:
    assert query(server, "host:frobnicate") == fail("unknown host service")
    assert query(server, "shell:echo hi") == fail("device offline (no transport)")


def test_a_transport_then_a_service_reaches_the_device(
    server: AdbServerEndpoint, scripted_device: ScriptedDevice
) -> None:
    with connect(server) as sock:
        request(sock, "host:transport:emulator-5554")
        assert sock.recv(4) == b"OKAY"
        request(sock, "shell:echo hello")
        assert read_socket_to_end(sock) == b"OKAYhello\n"
    assert scripted_device.opened == ["shell:echo hello"]


def test_tport_answers_the_transport_id(two_devices: tuple[AdbServerEndpoint, ScriptedDevice, ScriptedDevice]) -> None:
    endpoint, first, second = two_devices
    with connect(endpoint) as sock:
        request(sock, "host:tport:serial:emulator-5556")
        assert sock.recv(12) == b"OKAY" + struct.pack("<Q", 2)
        request(sock, "echo:")
        assert sock.recv(4) == b"OKAY"
        sock.sendall(b"ping")
        assert sock.recv(4) == b"ping"
    assert second.opened == ["echo:"] and first.opened == []


def test_a_service_the_device_refuses_fails_with_closed(server: AdbServerEndpoint) -> None:
    with connect(server) as sock:
        request(sock, "host:transport-any")
        assert sock.recv(4) == b"OKAY"
        request(sock, "localabstract:nobody-listens")
        assert read_socket_to_end(sock) == fail("closed")


def test_a_forward_answers_two_statuses_and_the_bound_port_then_connects(
    server: AdbServerEndpoint, scripted_device: ScriptedDevice
) -> None:
    reply = query(server, "host-serial:emulator-5554:forward:tcp:0;echo:")
    assert reply[:8] == b"OKAYOKAY"
    port = int(reply[12:].decode())
    assert int(reply[8:12], 16) == len(reply) - 12
    with socket.create_connection(("127.0.0.1", port), timeout=2.0) as sock:
        sock.sendall(b"through the forward")
        assert sock.recv(64) == b"through the forward"
    listing = query(server, "host:list-forward")
    assert listing[8:] == f"emulator-5554 tcp:{port} echo:\n".encode()
    assert query(server, f"host-serial:emulator-5554:killforward:tcp:{port}") == b"OKAYOKAY"
    assert query(server, "host:list-forward") == b"OKAY0000"
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=1.0).close()


def test_forward_errors_are_the_servers_texts(server: AdbServerEndpoint) -> None:
    reply = query(server, "host-serial:emulator-5554:forward:tcp:0;echo:")
    port = int(reply[12:].decode())
    try:
        norebind = query(server, f"host-serial:emulator-5554:forward:norebind:tcp:{port};echo:")
        assert norebind == fail("cannot rebind existing socket")
        assert query(server, "host-serial:emulator-5554:killforward:tcp:1") == fail("listener 'tcp:1' not found")
        assert query(server, "host-serial:emulator-5554:forward:tcp:1") == fail("bad forward: tcp:1")
    finally:
        assert query(server, "host:killforward-all") == b"OKAYOKAY"
    assert query(server, "host:list-forward") == b"OKAY0000"


def test_host_kill_answers_okay_and_stops_the_server(server: AdbServerEndpoint) -> None:
    assert query(server, "host:kill") == b"OKAY"
    deadline = time.monotonic() + 2.0
    while not server.stopped and time.monotonic() < deadline:
        time.sleep(0.02)
    assert server.stopped
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", server.port), timeout=1.0).close()


@pytest.mark.parametrize(
    "raw",
    [b"zzzzhost:version", b"0000", b"00", b"0010host:ver", b"\xff\xfe\x00\x01"],
    ids=["not-hex", "empty", "truncated-length", "truncated-body", "garbage"],
)
def test_malformed_or_truncated_requests_are_closed(server: AdbServerEndpoint, raw: bytes) -> None:
    with connect(server) as sock:
        with contextlib.suppress(OSError):  # the server may already have reset the connection
            sock.sendall(raw)
            sock.shutdown(socket.SHUT_WR)
        assert read_socket_to_end(sock) == b""
    assert query(server, "host:version") == b"OKAY00040029"


def test_a_request_left_unfinished_is_closed_at_the_io_timeout(server: AdbServerEndpoint) -> None:
    with connect(server) as sock:
        sock.settimeout(3.0)
        sock.sendall(b"0010host")
        assert read_socket_to_end(sock) == b""  # within io_timeout (0.5 s), not at the client's 3 s


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126), max_size=60))
def test_any_host_request_gets_okay_fail_or_a_close(server: AdbServerEndpoint, tail: str) -> None:
    assume(not tail.startswith(":kill"))  # host:kill stops the server: tested above
    with connect(server) as sock:
        request(sock, "host" + tail)
        sock.shutdown(socket.SHUT_WR)
        reply = read_socket_to_end(sock)
    assert reply == b"" or reply[:4] in (b"OKAY", b"FAIL")


def test_several_devices_are_listed_and_reached_by_serial(
    two_devices: tuple[AdbServerEndpoint, ScriptedDevice, ScriptedDevice],
) -> None:
    endpoint, first, second = two_devices
    listing = query(endpoint, "host:devices-l")[8:].decode().splitlines()
    assert [line.split()[0] for line in listing] == ["emulator-5554", "emulator-5556"]
    assert [line.split()[-1] for line in listing] == ["transport_id:1", "transport_id:2"]
    for serial, device in (("emulator-5554", first), ("emulator-5556", second)):
        with connect(endpoint) as sock:
            request(sock, f"host:transport:{serial}")
            assert sock.recv(4) == b"OKAY"
            request(sock, f"shell:echo {serial}")
            assert read_socket_to_end(sock) == f"OKAY{serial}\n".encode()
        assert device.opened == [f"shell:echo {serial}"]


def test_track_devices_sends_the_list_and_again_when_a_device_arrives(server: AdbServerEndpoint) -> None:
    with connect(server) as sock:
        request(sock, "host:track-devices")
        assert sock.recv(4) == b"OKAY"
        first = b"emulator-5554\tdevice\n"
        assert _recv_n(sock, 4 + len(first)) == b"%04x" % len(first) + first
        server.add_device("emulator-5556", ScriptedDevice())
        second = first + b"emulator-5556\tdevice\n"
        assert _recv_n(sock, 4 + len(second)) == b"%04x" % len(second) + second


def _recv_n(sock: socket.socket, n: int) -> bytes:
    data = bytearray()
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            break
        data += chunk
    return bytes(data)
