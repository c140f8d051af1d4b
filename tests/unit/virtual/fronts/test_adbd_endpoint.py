"""The adbd front on raw sockets: the CNXN handshake, stream flow control, bad input."""

from __future__ import annotations

import contextlib
import socket
import struct
import threading
import time
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_mobile_agent import errors
from pytest_mobile_agent.virtual.fronts import adbd_endpoint as adbd
from pytest_mobile_agent.virtual.fronts.adbd_endpoint import (
    A_CLSE,
    A_CNXN,
    A_OKAY,
    A_OPEN,
    A_VERSION,
    A_WRTE,
    AdbdEndpoint,
    encode_message,
)
from tests.support.scripted_device import ScriptedDevice


class Peer:
    """The adb server's side of the transport, scripted."""

    def __init__(self, port: int, timeout: float = 2.0) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)

    def send(self, command: int, arg0: int, arg1: int, data: bytes = b"", *, with_checksum: bool = False) -> None:
        self.sock.sendall(encode_message(command, arg0, arg1, data, with_checksum=with_checksum))

    def read(self) -> adbd.Message:
        header = self._exact(adbd.HEADER.size)
        command, arg0, arg1, length, check = adbd.decode_header(header)
        data = self._exact(length)
        self.last_checksum = check
        return adbd.Message(command, arg0, arg1, data)

    def _exact(self, n: int) -> bytes:
        out = bytearray()
        while len(out) < n:
            chunk = self.sock.recv(n - len(out))
            if not chunk:
                raise EOFError(f"closed after {len(out)} of {n} bytes")
            out += chunk
        return bytes(out)

    def connect(self, max_payload: int = 256 * 1024, version: int = A_VERSION) -> adbd.Message:
        self.send(A_CNXN, version, max_payload, b"host::features=shell_v2,cmd", with_checksum=True)
        return self.read()

    def closed(self) -> bool:
        """True when the endpoint closes the connection (EOF or a reset)."""
        try:
            return self.sock.recv(1) == b""
        except ConnectionResetError:
            return True

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def endpoint(scripted_device: ScriptedDevice) -> Iterator[AdbdEndpoint]:
    ep = AdbdEndpoint(scripted_device, io_timeout=0.5)
    yield ep
    ep.stop()


@pytest.fixture
def peer(endpoint: AdbdEndpoint) -> Iterator[Peer]:
    p = Peer(endpoint.port)
    yield p
    p.close()


def test_cnxn_is_answered_with_the_banner_version_and_max_payload(peer: Peer) -> None:
    reply = peer.connect()
    assert reply.name == "CNXN"
    assert (reply.arg0, reply.arg1) == (0x01000001, 1024 * 1024)
    assert reply.data.startswith(
        b"device::ro.product.name=sdk_gphone64_x86_64;ro.product.model=sdk_gphone64_x86_64;"
        b"ro.product.device=emu64x;features="
    )
    features = reply.data.split(b"features=")[1].decode().split(",")
    assert {"shell_v2", "cmd", "stat_v2", "ls_v2", "fixed_push_mkdir", "abb_exec"} <= set(features)
    assert not [f for f in features if f.endswith(("brotli", "lz4", "zstd")) or f == "delayed_ack"]
    assert peer.last_checksum == 0  # 0x01000001 on both sides: no checksums


def test_an_older_peer_gets_checksums(peer: Peer) -> None:
    reply = peer.connect(version=0x01000000)
    assert peer.last_checksum == adbd.checksum(reply.data) != 0


def test_open_reaches_the_service_and_each_wrte_waits_for_its_okay(peer: Peer, scripted_device: ScriptedDevice) -> None:
    peer.connect()
    peer.send(A_OPEN, 5, 0, b"sink:\0")
    okay = peer.read()
    assert (okay.name, okay.arg1) == ("OKAY", 5)
    local = okay.arg0
    stream = scripted_device.streams[-1]
    stream.emit(b"first")
    stream.emit(b"second")
    first = peer.read()
    assert (first.name, first.arg0, first.arg1, first.data) == ("WRTE", local, 5, b"first")
    peer.sock.settimeout(0.3)
    with pytest.raises(TimeoutError):
        peer.read()  # no second WRTE before our OKAY
    peer.sock.settimeout(2.0)
    peer.send(A_OKAY, 5, local)
    assert peer.read().data == b"second"
    peer.send(A_OKAY, 5, local)
    peer.send(A_WRTE, 5, local, b"to the device")
    ack = peer.read()
    assert (ack.name, ack.arg0, ack.arg1) == ("OKAY", local, 5)
    assert bytes(stream.received) == b"to the device"
    peer.send(A_CLSE, 5, local)
    assert stream.closed.wait(2.0)


def test_the_end_of_a_service_is_a_clse(peer: Peer) -> None:
    peer.connect()
    peer.send(A_OPEN, 9, 0, b"shell,v2,raw:echo ok\0")
    local = peer.read().arg0
    data = bytearray()
    while True:
        m = peer.read()
        if m.name == "CLSE":
            assert (m.arg0, m.arg1) == (local, 9)
            break
        assert m.name == "WRTE"
        data += m.data
        peer.send(A_OKAY, 9, local)
    assert data.startswith(b"\x01\x03\x00\x00\x00ok\n")


def test_a_refused_service_is_answered_with_clse(peer: Peer) -> None:
    peer.connect()
    peer.send(A_OPEN, 3, 0, b"localabstract:nobody\0")
    m = peer.read()
    assert (m.name, m.arg0, m.arg1) == ("CLSE", 0, 3)


def test_writes_are_split_at_the_peers_max_payload(peer: Peer, scripted_device: ScriptedDevice) -> None:
    peer.connect(max_payload=4096)
    peer.send(A_OPEN, 1, 0, b"sink:\0")
    local = peer.read().arg0
    scripted_device.streams[-1].emit(b"x" * 10000)
    sizes = []
    while sum(sizes) < 10000:
        m = peer.read()
        sizes.append(len(m.data))
        peer.send(A_OKAY, 1, local)
    assert sizes == [4096, 4096, 1808]


def test_a_stream_the_device_opens_goes_toward_the_server(endpoint: AdbdEndpoint, peer: Peer) -> None:
    peer.connect()
    conn = endpoint.connections()[0]
    opened: dict[str, object] = {}
    thread = threading.Thread(target=lambda: opened.update(stream=conn.open_host("tcp:6000", timeout=2.0)))
    thread.start()
    m = peer.read()
    assert (m.name, m.arg1, m.data) == ("OPEN", 0, b"tcp:6000\0")
    local = m.arg0
    peer.send(A_OKAY, 77, local)
    thread.join(2.0)
    host = opened["stream"]
    assert isinstance(host, adbd.HostStream)
    peer.send(A_WRTE, 77, local, b"from the host")
    assert host.recv(2.0) == b"from the host"
    assert peer.read().name == "OKAY"
    host.send(b"from the device")
    m = peer.read()
    assert (m.name, m.arg0, m.arg1, m.data) == ("WRTE", local, 77, b"from the device")
    peer.send(A_OKAY, 77, local)
    peer.send(A_CLSE, 77, local)
    assert host.recv(2.0) == b""


def test_a_stream_the_server_refuses_is_closed(endpoint: AdbdEndpoint, peer: Peer) -> None:
    peer.connect()
    conn = endpoint.connections()[0]
    result: dict[str, BaseException] = {}

    def open_it() -> None:
        try:
            conn.open_host("tcp:1", timeout=2.0)
        except errors.MobileAgentError as exc:
            result["error"] = exc

    thread = threading.Thread(target=open_it)
    thread.start()
    m = peer.read()
    peer.send(A_CLSE, 0, m.arg0)
    thread.join(2.0)
    assert isinstance(result["error"], errors.Closed)


@pytest.mark.parametrize(
    "raw",
    [
        struct.pack("<6I", A_CNXN, A_VERSION, 4096, 0, 0, 0),  # bad magic
        struct.pack("<6I", A_WRTE, 1, 1, 2 * 1024 * 1024, 0, A_WRTE ^ 0xFFFFFFFF),  # over the limit
        encode_message(A_CNXN, A_VERSION, 4096, b"host::")[:10],  # a truncated header, then EOF
        encode_message(A_CNXN, A_VERSION, 4096, b"host::features=x")[:30],  # truncated data, then EOF
        encode_message(A_CNXN, 0x00000001, 4096, b"host::"),  # a version older than any adb
    ],
    ids=["bad-magic", "oversized", "truncated-header", "truncated-data", "ancient-version"],
)
def test_malformed_messages_close_the_connection(endpoint: AdbdEndpoint, raw: bytes) -> None:
    peer = Peer(endpoint.port)
    try:
        with contextlib.suppress(OSError):
            peer.sock.sendall(raw)
            peer.sock.shutdown(socket.SHUT_WR)
        assert peer.closed()
    finally:
        peer.close()
    with contextlib.closing(Peer(endpoint.port)) as fresh:
        assert fresh.connect().name == "CNXN"


def test_a_message_left_unfinished_is_closed_at_the_io_timeout(endpoint: AdbdEndpoint) -> None:
    with contextlib.closing(Peer(endpoint.port, timeout=3.0)) as peer:
        peer.sock.sendall(encode_message(A_CNXN, A_VERSION, 4096, b"host::features=x")[:30])
        assert peer.closed()  # the endpoint's io_timeout (0.5 s), not the peer's 3 s


def test_a_bad_checksum_from_an_older_peer_closes(endpoint: AdbdEndpoint) -> None:
    with contextlib.closing(Peer(endpoint.port)) as peer:
        frame = bytearray(encode_message(A_CNXN, 0x01000000, 4096, b"host::", with_checksum=True))
        frame[16] ^= 0xFF
        peer.sock.sendall(bytes(frame))
        assert peer.closed()


def test_unknown_commands_are_ignored_and_open_before_cnxn_is_closed(peer: Peer) -> None:
    peer.send(0x5A5A5A5A, 1, 2, b"junk")
    peer.send(A_OPEN, 4, 0, b"echo:\0")
    m = peer.read()
    assert (m.name, m.arg0, m.arg1) == ("CLSE", 0, 4)
    assert peer.connect().name == "CNXN"
    peer.send(A_OPEN, 4, 0, b"\xff\xfe\0")  # not UTF-8
    assert peer.read().name == "CLSE"
    peer.send(A_WRTE, 4, 999, b"to nowhere")  # an unknown stream
    assert peer.read().name == "CLSE"


@given(st.binary(min_size=24, max_size=24))
def test_any_header_decodes_or_is_a_protocol_error(header: bytes) -> None:
    try:
        command, _, _, length, _ = adbd.decode_header(header)
    except errors.ProtocolError:
        return
    assert length <= adbd.MAX_PAYLOAD
    assert struct.unpack_from("<I", header, 20)[0] == command ^ 0xFFFFFFFF


def test_several_devices_have_their_own_endpoints_and_banners() -> None:
    first, second = ScriptedDevice(), ScriptedDevice()
    second.properties = {**first.properties, "ro.product.model": "second model"}
    a, b = AdbdEndpoint(first), AdbdEndpoint(second)
    try:
        assert a.port != b.port
        with contextlib.closing(Peer(a.port)) as pa, contextlib.closing(Peer(b.port)) as pb:
            assert b"ro.product.model=sdk_gphone64_x86_64;" in pa.connect().data
            assert b"ro.product.model=second model;" in pb.connect().data
            pa.send(A_OPEN, 1, 0, b"sink:\0")
            assert pa.read().name == "OKAY"
            assert first.opened == ["sink:"] and second.opened == []
    finally:
        a.stop()
        b.stop()


_COMMANDS = st.sampled_from([A_CNXN, A_OPEN, A_OKAY, A_WRTE, A_CLSE, adbd.A_AUTH, adbd.A_SYNC, 0x12345678])
_MESSAGES = st.builds(
    lambda command, arg0, arg1, data: encode_message(command, arg0, arg1, data),
    _COMMANDS,
    st.integers(0, 8),
    st.integers(0, 8),
    st.one_of(st.just(b"echo:\0"), st.just(b"sink:\0"), st.binary(max_size=40)),
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(_MESSAGES, max_size=6), st.binary(max_size=30))
def test_any_message_sequence_ends_in_replies_and_a_close_never_a_hang(
    endpoint: AdbdEndpoint, messages: list[bytes], tail: bytes
) -> None:
    with contextlib.closing(Peer(endpoint.port, timeout=3.0)) as peer:
        peer.connect()
        with contextlib.suppress(OSError):
            peer.sock.sendall(b"".join(messages) + tail)
            peer.sock.shutdown(socket.SHUT_WR)
        while True:  # the endpoint answers what it can, then closes at our end of stream
            try:
                if not peer.sock.recv(65536):
                    break
            except ConnectionResetError:
                break
    with contextlib.closing(Peer(endpoint.port)) as fresh:
        assert fresh.connect().name == "CNXN"


@pytest.fixture(scope="module")
def model_endpoint() -> Iterator[AdbdEndpoint]:
    from pytest_mobile_agent.virtual.device import VirtualDevice

    device = VirtualDevice("emulator-5554")
    ep = AdbdEndpoint(device, io_timeout=0.5)
    yield ep
    ep.stop()
    device.close()


_SERVICES = st.one_of(
    st.text(max_size=40),
    st.builds(
        lambda p, t: p + t,
        st.sampled_from(
            ["shell:", "shell,v2,raw:", "sync:", "localabstract:", "tcp:", "reverse:", "reverse:forward:", "exec:"]
        ),
        st.text(max_size=20),
    ),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(_SERVICES)
def test_any_service_name_on_the_device_model_is_okay_or_clse(
    model_endpoint: AdbdEndpoint, caplog: pytest.LogCaptureFixture, service: str
) -> None:
    caplog.clear()
    with contextlib.closing(Peer(model_endpoint.port, timeout=3.0)) as peer:
        peer.connect()
        peer.send(A_OPEN, 1, 0, service.encode("utf-8", "replace") + b"\0")
        reply = peer.read()
        assert reply.name in ("OKAY", "CLSE")
        if reply.name == "OKAY":
            peer.send(A_CLSE, 1, reply.arg0)
        peer.send(A_OPEN, 2, 0, b"shell,v2,raw:echo alive\0")  # the connection still serves
        while not ((m := peer.read()).name == "WRTE" and m.arg1 == 2):
            assert m.name in ("OKAY", "CLSE", "WRTE")
        assert b"alive" in m.data
    # A service the model cannot open is refused quietly; a warning means the model raised.
    assert not [r for r in caplog.records if r.levelname == "WARNING" and "adbd endpoint" in r.getMessage()]


def test_output_nobody_reads_waits_past_the_io_timeout(peer: Peer, scripted_device: ScriptedDevice) -> None:
    # A real adbd holds a stream whose reader takes nothing; the endpoint's io_timeout is 0.5 s.
    peer.connect()
    peer.send(A_OPEN, 5, 0, b"sink:\0")
    local = peer.read().arg0
    stream = scripted_device.streams[-1]
    stream.emit(b"first")
    stream.emit(b"second")
    assert peer.read().data == b"first"
    time.sleep(1.0)  # no OKAY for twice the io timeout
    peer.send(A_OKAY, 5, local)
    m = peer.read()
    assert (m.name, m.data) == ("WRTE", b"second")
    assert not stream.closed.is_set()


def test_a_stream_stalled_past_the_stall_timeout_is_closed(scripted_device: ScriptedDevice) -> None:
    endpoint = AdbdEndpoint(scripted_device, io_timeout=0.5, stall_timeout=0.3)
    try:
        with contextlib.closing(Peer(endpoint.port)) as peer:
            peer.connect()
            peer.send(A_OPEN, 5, 0, b"sink:\0")
            local = peer.read().arg0
            stream = scripted_device.streams[-1]
            stream.emit(b"first")
            stream.emit(b"second")
            assert peer.read().data == b"first"
            m = peer.read()  # never acknowledged: the endpoint gives the stream up
            assert (m.name, m.arg0, m.arg1) == ("CLSE", local, 5)
            assert stream.closed.wait(2.0)
    finally:
        endpoint.stop()
