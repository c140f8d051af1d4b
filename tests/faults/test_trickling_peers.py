"""A peer that answers one byte at a time keeps every read inside the io timeout, so only a total
deadline ends the call (issue 13, item 4); and a command that floods its output is stopped at
`max_output` instead of growing memory without bound."""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator

import pytest

from pytest_mobile_agent import errors
from pytest_mobile_agent.adb import AdbServer
from pytest_mobile_agent.virtual import VirtualLab

BYTE_EVERY = 0.2


@contextlib.contextmanager
def trickling_server(reply: bytes) -> Iterator[int]:
    """A loopback adb server that reads the request, then sends `reply` one byte every 0.2 s."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    listener.settimeout(0.1)
    stop = threading.Event()

    def trickle(conn: socket.socket) -> None:
        with conn, contextlib.suppress(OSError):
            conn.recv(4096)
            for byte in reply:
                if stop.wait(BYTE_EVERY):
                    return
                conn.sendall(bytes([byte]))

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except (TimeoutError, OSError):
                continue
            threading.Thread(target=trickle, args=(conn,), daemon=True).start()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield int(listener.getsockname()[1])
    finally:
        stop.set()
        thread.join(1.0)
        listener.close()


VERSION = b"OKAY0004" + b"0029"
LISTING = b"emulator-5554          device product:sdk model:sdk device:emu64 transport_id:1\n"
DEVICES = b"OKAY" + b"%04x" % len(LISTING) + LISTING


@pytest.mark.parametrize(("reply", "call"), [(VERSION, "version"), (DEVICES, "devices")])
def test_a_trickled_reply_ends_with_a_timeout_at_the_calls_total_deadline(reply: bytes, call: str) -> None:
    with trickling_server(reply) as port:
        server = AdbServer(host="127.0.0.1", port=port, io_timeout=0.3, call_timeout=1.0)
        with pytest.raises(errors.Timeout) as timeout:
            getattr(server, call)()
    assert timeout.value.deadline_s == 1.0  # the call's total, not the per-read 0.3 s


def test_a_reply_that_comes_in_time_is_read_whole() -> None:
    # each byte well inside the read timeout: 0.3 s against bytes 0.2 s apart timed out once on a
    # loaded CI host, whose server thread (in this process) was late by more than the 0.1 s between
    with trickling_server(VERSION) as port:
        assert AdbServer(host="127.0.0.1", port=port, io_timeout=1.0, call_timeout=10.0).version() == 0x29


@pytest.fixture(scope="module")
def lab() -> Iterator[VirtualLab]:
    lab = VirtualLab.start(1)
    try:
        yield lab
    finally:
        lab.stop()


def test_a_flooding_command_stops_at_max_output_with_how_to_stream_it(lab: VirtualLab) -> None:
    device = AdbServer(host="127.0.0.1", port=lab.adb_port).device("emulator-5554")
    with pytest.raises(errors.OutputLimit, match=r"wrote more than max_output=1048576 bytes") as limit:
        device.shell("cat /dev/zero", max_output=1 << 20)
    assert "shell_stream" in (limit.value.advice or "")
    assert device.shell("echo still here").text() == "still here\n"


def test_output_within_max_output_is_whole(lab: VirtualLab) -> None:
    device = AdbServer(host="127.0.0.1", port=lab.adb_port).device("emulator-5554")
    out = device.shell("seq 1 20000", max_output=1 << 20)
    assert out.text().splitlines()[-1] == "20000"
