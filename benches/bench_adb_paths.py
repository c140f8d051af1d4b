"""Shell round trip and push, through Debian's adb server and the virtual device's adbd endpoint.

The lab runs in a process of its own, as an emulator does. In one run, for our client, adbutils
and the adb binary: 100 `echo ok` round trips (p50, p95, max)
and a 16 MiB push (the best of 7 rounds, the clients taking turns; MiB/s), then the ratios against the targets:

* our shell p50 at most half the binary's, and no slower than adbutils';
* our push throughput at least 0.8 of the binary's, and no lower than adbutils'.

    python3 benches/bench_adb_paths.py [--runs 100] [--push-mib 16] [--push-rounds 7] [--builtin]

`--builtin` adds our client on a lab's built-in adb endpoint (also a process of its own);
`--forking` adds Debian's adb server in front of forking_adbd.py, an adbd double that forks a real
`/bin/sh` per command. On each endpoint the shell is also timed for:

* floor: a minimal raw-socket shell v2 client (connect, `host:transport:`, `shell,v2,raw:`, close
  stdin, read to the exit packet, nothing else), so that ours / floor is measured, not assumed;
* persistent: `Device.persistent_shell().run("echo ok")`, one shell for every command, beside
  adbutils' held-open shell (`AdbDevice.shell("sh", stream=True)`, each command written with an
  `echo` of a marker and its `$?` after it, read to the marker), the same work in adbutils' hands;
  and `run_many` of 10 commands at a time, per command.

Targets: ours / floor at most 1.15; persistent / adbutils' held-open at most 0.8.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from timing import percentiles, timed

from pytest_mobile_agent.adb import AdbServer
from pytest_mobile_agent.virtual.lab import adb_binary

REMOTE = "/data/local/tmp/mobile-agent-bench-push.bin"


@dataclass
class ServedLab:
    serial: str
    adb_port: int
    server_pid: int | None  # Debian's adb server's, with --real-adb


@contextlib.contextmanager
def served_lab(*, real_adb: bool) -> Iterator[ServedLab]:
    """A lab in a process of its own (`python -m pytest_mobile_agent.virtual [--real-adb]`), as an
    emulator is its own process: no client shares its interpreter (or its GIL) with the device."""
    command = [sys.executable, "-m", "pytest_mobile_agent.virtual", *(["--real-adb"] if real_adb else [])]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        lines: list[str] = []
        while not (line := process.stdout.readline()).startswith("serving until interrupted"):
            if not line:
                raise RuntimeError(f"the lab did not start: {lines} {process.stderr.read() if process.stderr else ''}")
            lines.append(line)
        text = "".join(lines)
        serial = re.search(r"virtual devices: (\S+)", text)
        port = re.search(r"export ANDROID_ADB_SERVER_PORT=(\d+)", text)
        pid = re.search(r"adb server \(pid (\d+)\)", text)
        assert serial and port, text
        yield ServedLab(serial.group(1), int(port.group(1)), int(pid.group(1)) if pid else None)
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate(timeout=5)





def throughput(fn: Callable[[], object], size: int, runs: int = 3) -> float:
    """MiB/s of the best of `runs`."""
    best = min(timed(fn, runs))
    return size / (1024 * 1024) / (best / 1000)


def alternating_throughput(pushes: dict[str, Callable[[], object]], size: int, rounds: int) -> dict[str, float]:
    """MiB/s of each client's best round, the clients taking turns round after round, so that a
    change in the host's load falls on all of them alike."""
    best = {name: float("inf") for name in pushes}
    for _ in range(rounds):
        for name, push in pushes.items():
            best[name] = min(best[name], timed(push, 1)[0])
    return {name: size / (1024 * 1024) / (ms / 1000) for name, ms in best.items()}


def floor_shell(port: int, serial: str, command: bytes = b"echo ok") -> bytes:
    """A shell v2 round trip with nothing but a socket: the floor any client pays."""
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        for request in (f"host:transport:{serial}".encode(), b"shell,v2,raw:" + command):
            sock.sendall(b"%04x%s" % (len(request), request))
            if sock.recv(4) != b"OKAY":
                raise RuntimeError(f"{request!r} refused")
        sock.sendall(b"\x04\x00\x00\x00\x00")  # close stdin
        buffer, stdout = b"", b""
        while True:
            while len(buffer) < 5 or len(buffer) < 5 + int.from_bytes(buffer[1:5], "little"):
                chunk = sock.recv(65536)
                if not chunk:
                    raise RuntimeError("the stream ended before the exit packet")
                buffer += chunk
            kind, size = buffer[0], int.from_bytes(buffer[1:5], "little")
            payload, buffer = buffer[5 : 5 + size], buffer[5 + size :]
            if kind == 1:
                stdout += payload
            elif kind == 3:
                return stdout


class HeldOpenAdbutilsShell:
    """adbutils' shell held open: `shell:sh` as a stream, a marker echoed after each command."""

    MARK = b"__bench_end__"

    def __init__(self, device: object) -> None:
        self.conn = device.shell("sh", stream=True)  # type: ignore[attr-defined]
        self.buffer = b""

    def run(self, command: str) -> tuple[int, bytes]:
        self.conn.send(f"{command}; echo {self.MARK.decode()}$?\n".encode())
        while (at := self.buffer.find(self.MARK)) < 0 or self.buffer.find(b"\n", at) < 0:
            self.buffer += self.conn.recv(65536)
        end = self.buffer.index(b"\n", at)
        out, status, self.buffer = self.buffer[:at], int(self.buffer[at + len(self.MARK):end]), self.buffer[end + 1:]
        return status, out

    def close(self) -> None:
        self.conn.close()


def shell_modes(port: int, serial: str, runs: int) -> dict[str, tuple[float, float, float]]:
    """p50, p95, max of each way to run `echo ok` on one endpoint, the ways taking turns."""
    import adbutils

    ours = AdbServer(host="127.0.0.1", port=port).device(serial)
    persistent = ours.persistent_shell()
    held = HeldOpenAdbutilsShell(adbutils.AdbClient(host="127.0.0.1", port=port).device(serial))
    batch = ["echo ok"] * 10

    def many() -> None:
        assert all(r.stdout == b"ok\n" for r in persistent.run_many(batch))

    ways: dict[str, Callable[[], object]] = {
        "ours": lambda: ours.shell("echo ok"),
        "floor": lambda: floor_shell(port, serial),
        "persistent": lambda: persistent.run("echo ok"),
        "adbutils held-open": lambda: held.run("echo ok"),
        "persistent run_many/10": many,
    }
    assert ours.shell("echo ok").stdout == floor_shell(port, serial) == persistent.run("echo ok").stdout == b"ok\n"
    assert held.run("echo ok") == (0, b"ok\n")
    times: dict[str, list[float]] = {name: [] for name in ways}
    for _ in range(runs):
        for name, way in ways.items():
            times[name].extend(timed(way, 1))
    times["persistent run_many/10"] = [t / 10 for t in times["persistent run_many/10"]]
    persistent.close()
    held.close()
    return {name: percentiles(t) for name, t in times.items()}


def shell_mode_lines(label: str, modes: dict[str, tuple[float, float, float]]) -> list[str]:
    out = [f"{label}:"]
    for name, (p50, p95, worst) in modes.items():
        out.append(f"  {name:24} p50 {p50:6.3f} ms  p95 {p95:6.3f} ms  max {worst:6.3f} ms")
    floor = modes["ours"][0] / modes["floor"][0]
    held = modes["persistent"][0] / modes["adbutils held-open"][0]
    out.append(
        f"  ours / floor {floor:.2f} (target <= 1.15: {'met' if floor <= 1.15 else 'MISSED'}); "
        f"persistent / adbutils held-open {held:.2f} (target <= 0.8: {'met' if held <= 0.8 else 'MISSED'}); "
        "run_many per command / adbutils held-open "
        f"{modes['persistent run_many/10'][0] / modes['adbutils held-open'][0]:.2f}"
    )
    return out


@contextlib.contextmanager
def forking_adbd() -> Iterator[tuple[int, str]]:
    """benches/forking_adbd.py in a process of its own: (the adb server's port, the serial)."""
    here = Path(__file__).resolve().parent
    process = subprocess.Popen([sys.executable, str(here / "forking_adbd.py")], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        ready = process.stdout.readline().split()
        if not ready or ready[0] != "ready":
            raise RuntimeError("the forking adbd double did not start")
        yield int(ready[1]), ready[2]
    finally:
        assert process.stdin is not None
        process.stdin.close()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)


def check(out: list[str], label: str, ok: bool) -> None:
    out.append(f"  {'met' if ok else 'MISSED'}: {label}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--push-mib", type=int, default=16)
    parser.add_argument("--push-rounds", type=int, default=7, help="pushes per client, taking turns (default 7)")
    parser.add_argument("--builtin", action="store_true", help="also measure our client on the built-in endpoint")
    parser.add_argument(
        "--forking", action="store_true", help="also measure the shell through an adbd double that forks /bin/sh"
    )
    parser.add_argument("--no-push", action="store_true", help="leave the push out")
    args = parser.parse_args()
    binary = adb_binary()
    if binary is None:
        print("no adb binary: apt-get install adb", file=sys.stderr)
        return 2
    import adbutils

    size = args.push_mib * 1024 * 1024
    payload = os.urandom(size)
    with tempfile.TemporaryDirectory() as tmp, served_lab(real_adb=True) as lab:
        local = Path(tmp) / "push.bin"
        local.write_bytes(payload)
        serial = lab.serial
        ours = AdbServer(host="127.0.0.1", port=lab.adb_port).device(serial)
        theirs = adbutils.AdbClient(host="127.0.0.1", port=lab.adb_port).device(serial)
        base = [binary, "-P", str(lab.adb_port), "-s", serial]

        def binary_shell() -> None:
            result = subprocess.run([*base, "shell", "echo", "ok"], capture_output=True, check=True, timeout=10)
            assert result.stdout == b"ok\n", result.stdout

        def ours_shell() -> None:
            assert ours.shell("echo ok").stdout == b"ok\n"

        def adbutils_shell() -> None:
            assert theirs.shell("echo ok") == "ok"

        for warm in (ours_shell, adbutils_shell, binary_shell):
            warm()
        shell = {
            "ours": percentiles(timed(ours_shell, args.runs)),
            "adbutils": percentiles(timed(adbutils_shell, args.runs)),
            "adb binary": percentiles(timed(binary_shell, args.runs)),
        }
        modes = {"Debian's adb server, the virtual device's adbd": shell_modes(lab.adb_port, serial, args.runs)}
        push = (
            {name: float("nan") for name in shell}
            if args.no_push
            else alternating_throughput(
                {
                    "ours": lambda: ours.push(local, REMOTE),
                    "adbutils": lambda: theirs.sync.push(str(local), REMOTE),
                    "adb binary": lambda: subprocess.run(
                        [*base, "push", str(local), REMOTE], capture_output=True, check=True, timeout=60
                    ),
                },
                size,
                args.push_rounds,
            )
        )
        ours.shell(f"rm -f {REMOTE}")
        real_pid = lab.server_pid
        builtin: tuple[tuple[float, float, float], float] | None = None
        if args.builtin:
            with served_lab(real_adb=False) as other:
                on_builtin = AdbServer(host="127.0.0.1", port=other.adb_port).device(other.serial)
                builtin = (
                    percentiles(timed(lambda: on_builtin.shell("echo ok"), args.runs)),
                    float("nan") if args.no_push else throughput(lambda: on_builtin.push(local, REMOTE), size),
                )
                modes["the built-in adb endpoint"] = shell_modes(other.adb_port, other.serial, args.runs)
        if args.forking:
            with forking_adbd() as (port, forked_serial):
                forked_binary = [binary, "-P", str(port), "-s", forked_serial, "shell", "echo", "ok"]
                forked = shell_modes(port, forked_serial, args.runs)
                forked["adb binary"] = percentiles(
                    timed(
                        lambda: subprocess.run(forked_binary, capture_output=True, check=True, timeout=10),
                        max(10, args.runs // 5),
                    )
                )
                modes["Debian's adb server, the forking adbd double"] = forked

    out = [
        f"through Debian's adb server (pid {real_pid}) and the adbd endpoint of {serial}; "
        f"shell: {args.runs} x `echo ok`; push: {args.push_mib} MiB, best of {args.push_rounds} rounds taken in turn",
        "",
        f"{'':12} {'shell p50':>10} {'p95':>8} {'max':>8}   {'push MiB/s':>10}",
    ]
    for name in shell:
        p50, p95, worst = shell[name]
        out.append(f"{name:12} {p50:8.2f}ms {p95:6.2f}ms {worst:6.2f}ms   {push[name]:10.1f}")
    if builtin is not None:
        (p50, p95, worst), rate = builtin
        out.append(f"{'ours, built-in endpoint':12} {p50:8.2f}ms {p95:6.2f}ms {worst:6.2f}ms   {rate:10.1f}")
    ratio_shell_bin = shell["ours"][0] / shell["adb binary"][0]
    ratio_shell_au = shell["ours"][0] / shell["adbutils"][0]
    ratio_push_bin = push["ours"] / push["adb binary"]
    ratio_push_au = push["ours"] / push["adbutils"]
    out += [
        "",
        f"shell p50, ours / binary: {ratio_shell_bin:.2f} (target <= 0.5); ours / adbutils: {ratio_shell_au:.2f} "
        "(target <= 1.0)",
        f"push throughput, ours / binary: {ratio_push_bin:.2f} (target >= 0.8); ours / adbutils: {ratio_push_au:.2f} "
        "(target >= 1.0)",
    ]
    check(out, "shell p50 at most half the binary's", ratio_shell_bin <= 0.5)
    check(out, "shell p50 no slower than adbutils'", ratio_shell_au <= 1.0)
    check(out, "push at least 0.8 of the binary's", ratio_push_bin >= 0.8)
    check(out, "push no lower than adbutils'", ratio_push_au >= 1.0)
    out.append("")
    for label, figures in modes.items():
        out.extend(shell_mode_lines(label, figures))
        if "adb binary" in figures:
            out.append(f"  ours / adb binary {figures['ours'][0] / figures['adb binary'][0]:.2f} through this adbd")
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
