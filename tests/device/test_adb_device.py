"""Task 5.1's checks on a device (the seed's tests/adb_device.rs), written once for any target."""

from __future__ import annotations

import os
import re
import secrets
import socket
import statistics
import time
from pathlib import Path

import pytest

from pytest_mobile_agent import errors
from pytest_mobile_agent.adb import AdbServer, Device
from pytest_mobile_agent.plugin.fixtures import AndroidTarget
from pytest_mobile_agent.plugin.gates import HostGate
from tests.support.on_device import HostListener, it_name, reverse_rule

pytestmark = pytest.mark.device


def test_listing_shows_the_device(adb_server: AdbServer, device: Device) -> None:
    entries = {entry.serial: entry for entry in adb_server.devices()}
    assert device.serial in entries, f"{device.serial} not in {sorted(entries)}"
    entry = entries[device.serial]
    assert entry.state == "device"
    assert entry.attributes.get("model")
    assert entry.attributes.get("transport_id", "").isdigit()


def test_shell_v2_keeps_the_exit_status_and_stderr_apart(device: Device) -> None:
    output = device.shell("echo to-stdout; echo to-stderr >&2; exit 3")
    assert output.exit_code == 3
    assert output.stdout == b"to-stdout\n"
    assert output.stderr == b"to-stderr\n"


def test_a_command_reading_stdin_sees_end_of_file(device: Device) -> None:
    # shell() closes stdin at once: cat ends with nothing to print.
    output = device.shell("cat; echo cat-ended")
    assert (output.exit_code, output.stdout) == (0, b"cat-ended\n")
    with device.shell_stream("cat; echo cat-ended") as stream:
        stream.write(b"line one\n")
        stream.close_stdin()
        result = stream.collect()
    assert (result.exit_code, result.stdout) == (0, b"line one\ncat-ended\n")


def _running(device: Device, pid: int) -> bool:
    listing = device.shell("ps -A -o PID,ARGS").text()
    return any(line.split(None, 1)[0] == str(pid) for line in listing.splitlines()[1:] if line.strip())


def test_closing_a_shell_stream_ends_the_command(device: Device) -> None:
    stream = device.shell_stream("echo $$; exec sleep 60")
    try:
        line = stream.read_line(timeout=5.0)
        assert line is not None and line.isdigit(), line
        pid = int(line)
        assert _running(device, pid)
    finally:
        stream.close()  # adbd sends the command SIGHUP
    deadline = time.monotonic() + 5.0
    while _running(device, pid):
        assert time.monotonic() < deadline, f"sleep (pid {pid}) still runs 5 s after its stream closed"
        time.sleep(0.05)


def test_a_pty_stream_runs_the_command_on_a_terminal(device: Device) -> None:
    with device.shell_stream_with("tty", pty=True) as stream:
        result = stream.collect()
    assert result.exit_code == 0
    assert re.fullmatch(rb"/dev/pts/\d+\r?\n", result.stdout), result.stdout
    on_a_pipe = device.shell("tty")
    assert on_a_pipe.exit_code == 1
    assert on_a_pipe.stdout == b"not a tty\n"


@pytest.mark.parametrize(("mode", "arrives"), [(0o644, "666"), (0o755, "777"), (0o444, "444")])
def test_push_writes_the_bytes_with_the_mode(device: Device, remote_path: str, mode: int, arrives: str) -> None:
    data = secrets.token_bytes(100_000) + bytes(range(256))
    device.push_bytes(data, remote_path, mode=mode)
    # adbd copies the owner's bits to group and other: 0644 arrives 0666, 0755 0777, 0444 stays.
    assert device.shell(f"stat -c %a {remote_path}").text().strip() == arrives
    back = device.shell(f"cat {remote_path}")
    assert back.exit_code == 0
    assert back.stdout == data


def test_push_copies_a_local_file(device: Device, remote_path: str, tmp_path: Path) -> None:
    local = tmp_path / "mobile-agent-it-local.bin"
    local.write_bytes(bytes(range(256)) * 1024 + b"the end\n")
    os.utime(local, (1_700_000_000, 1_700_000_000))
    device.push(local, remote_path)
    assert device.shell(f"cat {remote_path}").stdout == local.read_bytes()
    assert device.shell(f"stat -c %s {remote_path}").text().strip() == str(local.stat().st_size)
    assert device.shell(f"stat -c %Y {remote_path}").text().strip() == "1700000000"


def test_a_push_adbd_refuses_reports_its_message(device: Device) -> None:
    with pytest.raises(errors.SyncFailure) as refused:
        device.push_bytes(b"refused", f"/system/{it_name('refused')}")
    assert refused.value.reason.startswith("couldn't create file:"), refused.value.reason
    assert "Read-only file system" in refused.value.reason or "Permission denied" in refused.value.reason


def test_a_forwarded_port_connects(device: Device, host_listener: HostListener) -> None:
    # The device side of the forward is a live abstract socket: a reverse rule to our listener.
    with reverse_rule(device, host_listener) as name:
        port = device.forward_tcp(f"localabstract:{name}")
        try:
            assert any(rule.local == f"tcp:{port}" for rule in device.forwards())
            with socket.create_connection(("127.0.0.1", port), timeout=5.0) as sock:
                sock.settimeout(5.0)
                sock.sendall(b"over the forward")
                assert _recv_exactly(sock, len(b"host:over the forward")) == b"host:over the forward"
        finally:
            device.remove_forward(f"tcp:{port}")  # forward rules first
        assert not any(rule.local == f"tcp:{port}" for rule in device.forwards())


def _recv_exactly(sock: socket.socket, n: int) -> bytes:
    data = bytearray()
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            break
        data += chunk
    return bytes(data)


def test_a_service_stream_reaches_a_live_abstract_socket(device: Device, host_listener: HostListener) -> None:
    with reverse_rule(device, host_listener) as name:
        assert any(rule.local == f"localabstract:{name}" for rule in device.reverses())
        with device.open_abstract(name) as stream:
            stream.sendall(b"hello abstract")
            assert stream.recv_exact(len(b"host:hello abstract"), timeout=5.0) == b"host:hello abstract"
        assert host_listener.accepted == 1


def test_a_service_stream_to_a_missing_socket_fails_with_closed(device: Device) -> None:
    with pytest.raises(errors.Closed):
        device.open_abstract(it_name("missing"))


def test_a_reverse_adbd_refuses_reports_its_error(device: Device, host_listener: HostListener) -> None:
    missing = f"localabstract:{it_name('never-installed')}"
    with pytest.raises(errors.AdbFailure) as not_found:
        device.remove_reverse(missing)
    assert not_found.value.reason == f"listener '{missing}' not found"
    with reverse_rule(device, host_listener) as name:
        with pytest.raises(errors.AdbFailure) as rebind:
            device.reverse(f"localabstract:{name}", f"tcp:{host_listener.port}", norebind=True)
        assert rebind.value.reason == "cannot rebind existing socket"


def test_a_missing_serial_fails_with_the_servers_message(adb_server: AdbServer) -> None:
    serial = it_name("no-such-serial")
    with pytest.raises(errors.AdbFailure) as missing:
        adb_server.device(serial).shell("echo never")
    assert missing.value.reason == f"device '{serial}' not found"


def test_targets_report_the_api_level_and_the_emulator_flag(
    adb_server: AdbServer, android_target: AndroidTarget
) -> None:
    targets = {target.serial: target for target in adb_server.targets()}
    target = targets[android_target.serial]
    assert target.advice is None
    assert target.api_level is not None and target.api_level >= 21
    qemu = adb_server.device(target.serial).getprop("ro.kernel.qemu") == "1"
    assert target.emulator == (qemu or target.serial.startswith("emulator-"))
    if android_target.virtual:
        assert (target.api_level, target.emulator) == (36, True)


def test_shell_round_trip(device: Device, host_gate: HostGate) -> None:
    times = []
    for _ in range(100):
        started = time.perf_counter()
        output = device.shell("echo ok")
        times.append((time.perf_counter() - started) * 1000)
        assert output.stdout == b"ok\n"
    times.sort()
    p50, p95 = statistics.median(times), times[94]
    print(f"shell_round_trip: p50 {p50:.2f} ms, p95 {p95:.2f} ms, max {times[-1]:.2f} ms (n=100)")
    host_gate.check(p50, 50.0, "shell round trip p50")
