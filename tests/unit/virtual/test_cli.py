"""`python -m pytest_mobile_agent.virtual`: prints how to reach the lab, serves, stops on SIGTERM."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from pytest_mobile_agent.virtual.lab import adb_binary


def start_cli(*args: str) -> tuple[subprocess.Popen[str], list[str]]:
    process = subprocess.Popen(
        [sys.executable, "-m", "pytest_mobile_agent.virtual", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    lines: list[str] = []
    assert process.stdout is not None
    deadline = time.monotonic() + 20.0
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        lines.append(line.rstrip("\n"))
        if line.startswith("serving until interrupted"):
            return process, lines
    process.kill()
    process.wait(5)
    pytest.fail(f"the command line printed no serving line: {lines} {process.stderr.read() if process.stderr else ''}")


def host_version(port: int) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=2.0) as sock:
        sock.sendall(b"000chost:version")
        reply = bytearray()
        while chunk := sock.recv(64):  # the real server may send OKAY and the version apart
            reply += chunk
        return bytes(reply)


def stop(process: subprocess.Popen[str]) -> tuple[int, str]:
    process.send_signal(signal.SIGTERM)
    out, _ = process.communicate(timeout=10)
    return process.returncode, out


@pytest.fixture
def cli() -> Iterator[Callable[..., tuple[subprocess.Popen[str], list[str]]]]:
    """Starts the command line; whatever a test asserts, each one is gone afterwards (by its pid)."""
    started: list[subprocess.Popen[str]] = []

    def start(*args: str) -> tuple[subprocess.Popen[str], list[str]]:
        process, lines = start_cli(*args)
        started.append(process)
        return process, lines

    yield start
    for process in started:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.communicate(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.communicate(timeout=5)


def test_the_command_line_prints_the_serials_ports_and_environment_and_stops_on_sigterm(
    cli: Callable[..., tuple[subprocess.Popen[str], list[str]]],
) -> None:
    process, lines = cli("--devices", "2")
    text = "\n".join(lines)
    assert "virtual devices: emulator-5554, emulator-5556" in text
    port = int(re.search(r"export ANDROID_ADB_SERVER_PORT=(\d+)", text).group(1))  # type: ignore[union-attr]
    assert "pytest --android-serial emulator-5554" in text
    assert host_version(port) == b"OKAY00040029"
    code, out = stop(process)
    assert (code, out.strip()) == (0, "stopped")
    with pytest.raises(OSError):
        host_version(port)


@pytest.mark.skipif(adb_binary() is None, reason="no adb binary (/usr/bin/adb): apt-get install adb")
def test_with_real_adb_the_server_is_a_child_stopped_with_the_lab(
    cli: Callable[..., tuple[subprocess.Popen[str], list[str]]],
) -> None:
    process, lines = cli("--real-adb")
    text = "\n".join(lines)
    pid = int(re.search(r"Debian's adb server \(pid (\d+)\)", text).group(1))  # type: ignore[union-attr]
    port = int(re.search(r"export ANDROID_ADB_SERVER_PORT=(\d+)", text).group(1))  # type: ignore[union-attr]
    assert re.search(r"adbd endpoint on 127\.0\.0\.1:\d+", text)
    assert host_version(port) == b"OKAY00040029"
    code, _ = stop(process)
    assert code == 0
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_a_bad_device_count_is_a_usage_error() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "pytest_mobile_agent.virtual", "--devices", "0"],
        capture_output=True,
        text=True,
        timeout=20,
    )
    assert result.returncode == 2
    assert "--devices must be at least 1" in result.stderr


def test_it_serves_on_the_adb_port_named_and_starts_a_controller_with_a_token_as_grpc_asks(
        cli: Callable[..., tuple[subprocess.Popen[str], list[str]]], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """What the device workflow's fake emulator runs: the adb server's port, and `-grpc PORT -grpc-use-token`."""
    from tests.support.ports import free_port

    monkeypatch.setenv("MOBILE_AGENT_AVD_DISCOVERY_DIR", str(tmp_path))
    port, grpc = free_port(), free_port()
    process, lines = cli("--adb-port", str(port), "--grpc", str(grpc))
    assert f"adb server: 127.0.0.1:{port} (the built-in adb endpoint)" in lines
    (discovery,) = tmp_path.glob("pid_*.ini")
    said_controller = re.compile(rf"  emulator-5554: emulator controller on 127\.0\.0\.1:{grpc} \(with a token, "
                                 rf"AVD \S+, discovery file {re.escape(str(discovery))}\)")
    assert any(said_controller.fullmatch(line) for line in lines), lines
    said = dict(line.split("=", 1) for line in discovery.read_text().splitlines() if "=" in line)
    assert said["grpc.port"] == str(grpc) and said["port.serial"] == "5554" and len(said["grpc.token"]) > 16
    assert host_version(port).startswith(b"OKAY")
    assert stop(process)[0] == 0
