"""Peers that accept a connection and never answer: every call ends by its deadline with a Timeout
(or the controller's Unavailable, which says how to enable it), never later (host-gated bounds)."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator

import pytest

from pytest_mobile_agent import errors
from pytest_mobile_agent.adb import AdbServer
from pytest_mobile_agent.agent.connection import Connection
from pytest_mobile_agent.emulator import Controller, Endpoint
from pytest_mobile_agent.plugin.gates import HostGate
from pytest_mobile_agent.virtual.fronts.silent_port import SilentPort

SLACK_MS = 250.0


@contextlib.contextmanager
def silent_listener() -> Iterator[int]:
    """A loopback listener that accepts, reads everything and never writes."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    listener.settimeout(0.1)
    stop = threading.Event()
    held: list[socket.socket] = []

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except (TimeoutError, OSError):
                continue
            held.append(conn)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield int(listener.getsockname()[1])
    finally:
        stop.set()
        thread.join(1.0)
        listener.close()
        for conn in held:
            conn.close()


def _timed(call) -> tuple[BaseException, float]:  # noqa: ANN001
    started = time.monotonic()
    with pytest.raises(errors.MobileAgentError) as failure:
        call()
    return failure.value, (time.monotonic() - started) * 1000


@pytest.mark.parametrize("what", ["version", "devices", "shell", "push"])
def test_a_silent_adb_server_fails_each_call_at_its_io_deadline(what: str, gate: HostGate) -> None:
    with silent_listener() as port:
        server = AdbServer(host="127.0.0.1", port=port, connect_timeout=1.0, io_timeout=0.3)
        device = server.device("emulator-5554")
        call = {"version": server.version, "devices": server.devices, "shell": lambda: device.shell("true"),
                "push": lambda: device.push_bytes(b"x" * 100, "/data/local/tmp/x")}[what]
        error, took = _timed(call)
    assert isinstance(error, errors.Timeout) and error.is_timeout(), error
    assert "300 ms" in str(error)
    gate.check(took, 300 + SLACK_MS, f"{what} against a silent adb server")


def test_shell_until_against_a_silent_server_fails_at_the_callers_deadline(gate: HostGate) -> None:
    with silent_listener() as port:
        device = AdbServer(host="127.0.0.1", port=port, io_timeout=10.0).device("emulator-5554")
        error, took = _timed(lambda: device.shell_until("am start -W ...", time.monotonic() + 0.4))
    assert isinstance(error, errors.Timeout), error
    gate.check(took, 400 + SLACK_MS, "shell_until against a silent adb server")


def test_an_agent_socket_that_never_answers_fails_the_handshake_at_its_deadline(gate: HostGate) -> None:
    ours, theirs = socket.socketpair()
    with contextlib.closing(theirs):
        error, took = _timed(lambda: Connection.open(ours, "0" * 32, timeout=0.5, name="silent agent"))
    assert isinstance(error, errors.Timeout) and "handshake" in str(error), error
    gate.check(took, 500 + SLACK_MS, "a handshake with a silent agent")


def test_a_controller_port_that_accepts_and_never_answers_is_unavailable_by_the_connect_deadline(
    gate: HostGate,
) -> None:
    with SilentPort() as silent:
        error, took = _timed(lambda: Controller.connect(Endpoint.at(silent.port, serial="emulator-5554"), timeout=0.5))
    assert isinstance(error, errors.Unavailable), error
    assert "-grpc 8554 -grpc-use-token" in str(error)
    gate.check(took, 500 + SLACK_MS, "connecting to a controller port that never answers")
