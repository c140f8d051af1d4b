"""The adb server's address, host services, deadlines, and errors on garbage and truncated replies."""

from __future__ import annotations

import errno
import socket

import pytest

from pytest_mobile_agent import errors
from pytest_mobile_agent.adb import AdbServer, address_from_env
from pytest_mobile_agent.adb.connection import AdbConnection
from tests.support.adb_scripted import Peer, client
from tests.support.ports import closed_port


def version_reply(*answers: bytes, hang_up: bool = True):
    def handler(peer: Peer) -> None:
        peer.expect("host:version")
        for answer in answers:
            peer.send(answer)
        if not hang_up:
            peer.wait_closed()

    return handler


def test_version_reads_the_hex_version(scripted):
    server = scripted(version_reply(b"OKAY", b"0004", b"0029"))
    assert client(server).version() == 41
    assert server.peers[0].received == b"000chost:version"


def test_one_connection_per_request(scripted):
    server = scripted(version_reply(b"OKAY0004002a"), version_reply(b"OKAY0004002a"))
    adb = client(server)
    assert adb.version() == adb.version() == 42
    assert server.connections == 2


@pytest.mark.parametrize(
    ("reply", "error", "match"),
    [
        (b"OKAY0004zzzz", errors.ProtocolError, "hex version"),
        (b"WHAT", errors.ProtocolError, "expected OKAY or FAIL"),
        (b"OKAYxxyy", errors.ProtocolError, "4 hex digit length"),
        (b"OK", errors.ProtocolError, "truncated"),
        (b"OKAY0010abc", errors.ProtocolError, "truncated"),
        (b"", errors.Closed, "closed the connection"),
        (b"FAIL0007refused", errors.AdbFailure, "host:version: refused"),
    ],
)
def test_garbage_and_truncated_replies_are_clear_errors(scripted, reply, error, match):
    server = scripted(version_reply(reply))
    with pytest.raises(error, match=match):
        client(server).version()


def test_a_silent_server_times_out_at_the_io_deadline(scripted):
    server = scripted(version_reply(hang_up=False))
    with pytest.raises(errors.Timeout) as info:
        client(server, io_timeout=0.1).version()
    assert info.value.is_timeout() and "host:version" in str(info.value) and "100 ms" in str(info.value)


def test_nothing_listening_names_the_address_and_adb_start_server():
    with closed_port() as port, pytest.raises(errors.ServerUnreachable) as info:
        AdbServer(host="127.0.0.1", port=port).devices()
    text = str(info.value)
    assert f"127.0.0.1:{port}" in text and "adb start-server" in text


def test_the_adb_binary_is_never_spawned(monkeypatch):
    import subprocess

    def no_spawn(*args, **kwargs):
        raise AssertionError(f"spawned {args!r}")

    monkeypatch.setattr(subprocess, "Popen", no_spawn)
    with closed_port() as port, pytest.raises(errors.ServerUnreachable):
        AdbServer(host="127.0.0.1", port=port).version()


def test_kill_sends_host_kill(scripted):
    def kill(peer: Peer) -> None:
        peer.expect("host:kill")
        peer.okay()

    server = scripted(kill)
    client(server).kill()
    assert server.requests() == ["host:kill"]


def test_with_io_timeout_returns_a_copy():
    adb = AdbServer(host="127.0.0.1", port=5037)
    quick = adb.with_io_timeout(0.2)
    assert (quick.io_timeout, adb.io_timeout) == (0.2, 10.0)
    assert (quick.connect_timeout, quick.address) == (2.0, "127.0.0.1:5037")


# --- address -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("env", "address"),
    [
        ({}, ("127.0.0.1", 5037)),
        ({"ANDROID_ADB_SERVER_PORT": "5555"}, ("127.0.0.1", 5555)),
        ({"ADB_SERVER_SOCKET": "tcp:10.0.2.2:5038"}, ("10.0.2.2", 5038)),
        ({"ADB_SERVER_SOCKET": "tcp:5039", "ANDROID_ADB_SERVER_PORT": "5555"}, ("127.0.0.1", 5039)),
        ({"ADB_SERVER_SOCKET": "tcp:localhost:5040"}, ("127.0.0.1", 5040)),
    ],
)
def test_the_address_comes_from_the_environment(env, address):
    assert address_from_env(env) == address


@pytest.mark.parametrize(
    "env",
    [{"ANDROID_ADB_SERVER_PORT": "fifty"}, {"ANDROID_ADB_SERVER_PORT": "70000"},
     {"ADB_SERVER_SOCKET": "localfilesystem:/tmp/adb"}, {"ADB_SERVER_SOCKET": "tcp:host:"}],
)
def test_a_bad_address_in_the_environment_is_a_clear_error(env):
    with pytest.raises(errors.AdbError, match="ANDROID_ADB_SERVER_PORT|ADB_SERVER_SOCKET"):
        address_from_env(env)


def test_the_server_takes_its_address_from_the_environment_unless_given(monkeypatch):
    monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", "6037")
    monkeypatch.delenv("ADB_SERVER_SOCKET", raising=False)
    assert AdbServer().address == "127.0.0.1:6037"
    assert AdbServer(port=7037).address == "127.0.0.1:7037"


# --- would-block reads are timeouts ----------------------------------------------------------------


class _WouldBlock:
    """A socket whose reads report EAGAIN, as macOS reports a read past SO_RCVTIMEO (os error 35)."""

    def __init__(self, code: int) -> None:
        self.code = code

    def settimeout(self, timeout: float) -> None:
        pass

    def recv(self, n: int) -> bytes:
        raise OSError(self.code, "Resource temporarily unavailable")

    def sendall(self, data: bytes) -> None:
        raise BlockingIOError(errno.EWOULDBLOCK, "Resource temporarily unavailable")

    def close(self) -> None:
        pass


@pytest.mark.parametrize("code", [errno.EAGAIN, errno.EWOULDBLOCK, 35])
def test_a_read_that_reports_eagain_is_a_timeout(code):
    conn = AdbConnection(_WouldBlock(code), "127.0.0.1:5037", 0.2)  # type: ignore[arg-type]
    with pytest.raises(errors.Timeout) as info:
        conn.recv_exact(4, "host:version")
    assert errors.is_timeout(info.value) and "200 ms" in str(info.value)
    with pytest.raises(errors.Timeout):
        conn.sendall(b"x", "host:version")


def test_a_reset_connection_is_closed_not_an_oserror():
    class _Reset(_WouldBlock):
        def recv(self, n: int) -> bytes:
            raise ConnectionResetError(errno.ECONNRESET, "Connection reset by peer")

    conn = AdbConnection(_Reset(0), "127.0.0.1:5037", 0.2)  # type: ignore[arg-type]
    with pytest.raises(errors.Closed, match="reset"):
        conn.recv_exact(4, "host:version")
    assert not isinstance(errors.Closed("x"), OSError)


def test_socket_timeouts_count_as_timeouts():
    assert errors.is_timeout(TimeoutError()) and errors.is_timeout(socket.timeout())  # noqa: UP041
