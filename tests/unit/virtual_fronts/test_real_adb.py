"""Debian's own adb server attaches the virtual device's adbd endpoint, and its client drives it."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from pytest_mobile_agent.adb import AdbServer
from pytest_mobile_agent.virtual.adbd_endpoint import ADBD_PORTS
from pytest_mobile_agent.virtual.lab import VirtualLab, adb_binary

ADB = adb_binary()
pytestmark = pytest.mark.skipif(ADB is None, reason="no adb binary (/usr/bin/adb): apt-get install adb")


def adb(lab: VirtualLab, *args: str, timeout: float = 10.0) -> subprocess.CompletedProcess[bytes]:
    assert ADB is not None
    return subprocess.run([ADB, "-P", str(lab.adb_port), *args], capture_output=True, timeout=timeout, check=False)


@pytest.fixture(scope="module")
def lab() -> Iterator[VirtualLab]:
    with VirtualLab.start(1, real_adb=True) as started:
        yield started


def test_the_real_server_attaches_the_adbd_endpoint_as_an_emulator(lab: VirtualLab) -> None:
    serial = lab.serials[0]
    port = lab.adbd_port(serial)
    assert port in ADBD_PORTS
    # emulator-5554 on 127.0.0.1:5555 unless another lab holds that port.
    assert serial == f"emulator-{port - 1}"
    listing = adb(lab, "devices", "-l").stdout.decode()
    line = next(line for line in listing.splitlines() if line.startswith(serial))
    assert line.split()[1] == "device"
    assert "model:" in line and "transport_id:" in line


def test_adb_shell_runs_through_the_real_server(lab: VirtualLab) -> None:
    result = adb(lab, "-s", lab.serials[0], "shell", "echo", "ok")
    assert (result.returncode, result.stdout, result.stderr) == (0, b"ok\n", b"")
    status = adb(lab, "-s", lab.serials[0], "shell", "echo err >&2; exit 7")
    assert (status.returncode, status.stdout, status.stderr) == (7, b"", b"err\n")


def test_adb_push_through_the_real_server(lab: VirtualLab, tmp_path: Path) -> None:
    local = tmp_path / "payload.bin"
    local.write_bytes(bytes(range(256)) * 4096)
    local.chmod(0o644)
    remote = "/data/local/tmp/mobile-agent-it-real-push.bin"
    serial = lab.serials[0]
    try:
        pushed = adb(lab, "-s", serial, "push", str(local), remote)
        assert pushed.returncode == 0, pushed.stderr
        back = adb(lab, "-s", serial, "exec-out", f"cat {remote}")
        assert back.stdout == local.read_bytes()
        assert adb(lab, "-s", serial, "shell", f"stat -c %a {remote}").stdout == b"666\n"
    finally:
        adb(lab, "-s", serial, "shell", f"rm -f {remote}")


def test_without_a_free_emulator_port_the_device_attaches_through_adb_connect() -> None:
    with VirtualLab.start(1, real_adb=True, emulator_ports=range(0)) as lab:
        serial = lab.serials[0]
        assert serial == f"127.0.0.1:{lab.adbd_port(serial)}"
        result = adb(lab, "-s", serial, "shell", "echo", "connected")
        assert (result.returncode, result.stdout) == (0, b"connected\n")


def test_several_devices_behind_the_real_server() -> None:
    with VirtualLab.start(2, real_adb=True) as lab:
        assert len(set(lab.serials)) == 2
        for serial in lab.serials:
            result = adb(lab, "-s", serial, "shell", "getprop", "ro.build.version.sdk")
            assert (result.returncode, result.stdout) == (0, b"36\n")


def _exchange(port: int, *requests: str) -> bytes:
    """Send the requests on one connection (a pause after each), then read until the server closes
    or stays silent for 0.5 s (a sync stream waits for its client). No half-close: a client's end
    of stream closes the device stream on both servers, racing the device's output."""
    with socket.create_connection(("127.0.0.1", port), timeout=5.0) as sock:
        for text in requests:
            sock.sendall(b"%04x" % len(text) + text.encode())
            time.sleep(0.01)
        sock.settimeout(0.5)
        reply = bytearray()
        with contextlib.suppress(TimeoutError):
            while chunk := sock.recv(65536):
                reply += chunk
    return bytes(reply)


def _differential_cases(serial: str) -> list[tuple[str, ...]]:
    transport = f"host:transport:{serial}"
    return [
        ("host:version",),
        ("host:transport:mobile-agent-it-nope",),
        ("host:tport:serial:mobile-agent-it-nope",),
        ("host-serial:mobile-agent-it-nope:get-state",),
        ("host:transport-id:999",),
        ("host:frobnicate",),
        ("host:emulator:1",),
        ("shell:echo no transport",),
        (f"host-serial:{serial}:get-state",),
        (f"host-serial:{serial}:get-serialno",),
        (f"host-serial:{serial}:wait-for-any-device",),
        (f"host-serial:{serial}:killforward:tcp:1",),
        (f"host-serial:{serial}:forward:tcp:1",),
        (f"host-serial:{serial}:forward:norebind:tcp:1;",),
        (f"host-serial:{serial}:list-forward",),
        ("host:killforward-all",),
        (transport, "localabstract:mobile-agent-it-missing"),
        (transport, "bogus:service"),
        (transport, "shell,v2,raw:echo ok; echo e >&2; exit 4"),
        (transport, "shell:echo legacy"),
        (transport, "exec:echo x"),
        (transport, "sync:"),
        (transport, "reverse:list-forward"),
        (transport, "reverse:killforward:tcp:5"),
        (transport, "reverse:forward:tcp:1"),
        (transport, "host:version"),
        (transport, f"host-serial:{serial}:get-state"),
    ]


def test_the_builtin_endpoint_answers_byte_for_byte_as_the_real_server(lab: VirtualLab) -> None:
    serial = lab.serials[0]
    for case in _differential_cases(serial):
        real = _exchange(lab.adb_port, *case)
        builtin = _exchange(lab.builtin_adb_port, *case)
        assert builtin == real, f"{case}: the real server said {real!r}, the built-in endpoint {builtin!r}"
    features = _exchange(lab.adb_port, f"host-serial:{serial}:features")
    assert set(features[8:].split(b",")) == set(_exchange(lab.builtin_adb_port, f"host-serial:{serial}:features")[8:].split(b","))


def _wait_until(condition: Callable[[], bool], timeout: float = 3.0) -> bool:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def test_a_transport_that_goes_takes_its_reverse_rules_with_it(lab: VirtualLab) -> None:
    serial = lab.serials[0]
    model = lab.device(serial)
    client = AdbServer(host="127.0.0.1", port=lab.adb_port).device(serial)
    remote = "localabstract:mobile-agent-it-transport-gone"
    client.reverse(remote, "tcp:9")
    assert remote in model.reverse_rules
    endpoint = lab.adbd_endpoint(serial)
    assert endpoint is not None
    for conn in endpoint.connections():  # a cable pulled: adbd drops the transport's listeners
        conn.stop()
    assert _wait_until(lambda: remote not in model.reverse_rules)
    # The real server attaches the emulator again (it retries a kicked emulator port).
    assert _wait_until(lambda: lab.real is not None and lab.real.states().get(serial) == "device", 10.0)


def test_the_builtin_server_killed_takes_the_reverse_rules_through_it() -> None:
    with VirtualLab.start(1) as lab:
        serial = lab.serials[0]
        client = AdbServer(host="127.0.0.1", port=lab.adb_port).device(serial)
        client.reverse("localabstract:mobile-agent-it-killed", "tcp:9")
        assert "localabstract:mobile-agent-it-killed" in lab.device(serial).reverse_rules
        client.server.kill()
        assert _wait_until(lambda: not lab.device(serial).reverse_rules)


def test_a_lab_killed_outright_takes_its_adb_server_along(tmp_path: Path) -> None:
    script = (
        "import sys, threading, time\n"
        "from pytest_mobile_agent.virtual.lab import VirtualLab\n"
        "def start():\n"
        "    lab = VirtualLab.start(1, real_adb=True)\n"
        "    print(lab.real.pid, flush=True)\n"
        "worker = threading.Thread(target=start)\n"  # started on a worker that ends: the server stays
        "worker.start(); worker.join()\n"
        "time.sleep(60)\n"
    )
    process = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        pid = int(process.stdout.readline())
        time.sleep(0.3)
        os.kill(pid, 0)  # still serving after the thread that started it ended
    finally:
        process.kill()  # SIGKILL: no atexit, no stop()
        process.wait(5)
    assert _wait_until(lambda: not _alive(pid), 5.0), f"adb server {pid} outlived its lab"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with contextlib.suppress(OSError), open(f"/proc/{pid}/stat") as stat:
        return stat.read().split(") ", 1)[1][0] != "Z"  # a zombie has ended
    return True
