"""A bench-only adbd double that forks a real shell per command, behind Debian's adb server.

    python3 benches/forking_adbd.py      # prints "ready ADB_PORT SERIAL", serves until stdin closes

The device transport is the virtual device's adbd front (AdbdEndpoint); behind it, instead of the
device model, every `shell,v2,...:CMD` service forks `/bin/sh -c CMD` (`/bin/sh -` when CMD is empty) on pipes, in
shell protocol v2, or raw for `shell:` (v1), as adbd forks `/system/bin/sh` (AOSP
packages/modules/adb, daemon/shell_service.cpp: the raw subprocess type, stdout and stderr on their
own pipes, the exit status in an exit packet).
So a round trip pays a real fork and exec, which the device model's in-process shell does not.
"""

from __future__ import annotations

import queue
import subprocess
import sys
import threading
import time
from typing import Any

from pytest_mobile_agent import errors
from pytest_mobile_agent.adb import wire
from pytest_mobile_agent.virtual.fronts.adbd_endpoint import AdbdEndpoint
from pytest_mobile_agent.virtual.lab import RealAdbServer


class ForkedShell:
    """A DeviceStream (send, recv, close) over a forked /bin/sh, in shell protocol v2."""

    def __init__(self, command: str, v2: bool = True) -> None:
        self.v2 = v2  # shell v1 (`shell:`): raw bytes both ways, stderr with stdout, no exit status
        argv = ["/bin/sh", "-c", command] if command else ["/bin/sh", "-"]
        self.proc = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0
        )
        self.out: queue.Queue[bytes] = queue.Queue()
        self.decoder = wire.ShellPacketDecoder()
        readers = [threading.Thread(target=self._pump, args=(pipe, kind), daemon=True)
                   for pipe, kind in ((self.proc.stdout, wire.SHELL_STDOUT), (self.proc.stderr, wire.SHELL_STDERR))]
        for reader in readers:
            reader.start()
        threading.Thread(target=self._exit, args=(readers,), daemon=True).start()

    def _pump(self, pipe: Any, kind: int) -> None:
        while chunk := pipe.read1(65536) if hasattr(pipe, "read1") else pipe.read(65536):
            self.out.put(wire.encode_shell_packet(kind, chunk) if self.v2 else chunk)

    def _exit(self, readers: list[threading.Thread]) -> None:
        status = self.proc.wait()
        for reader in readers:
            reader.join()
        if self.v2:
            self.out.put(wire.encode_shell_packet(wire.SHELL_EXIT, bytes([status & 0xFF])))
        self.out.put(b"")

    def send(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        if not self.v2:
            self.proc.stdin.write(data)
            return
        for kind, payload in self.decoder.feed(data):
            if kind == wire.SHELL_STDIN:
                self.proc.stdin.write(payload)
            elif kind == wire.SHELL_CLOSE_STDIN:
                self.proc.stdin.close()

    def recv(self, timeout: float | None = None) -> bytes:
        try:
            return self.out.get(timeout=timeout)
        except queue.Empty:
            raise errors.Timeout("forked shell", timeout) from None

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()


class ForkingDevice:
    properties = {
        "ro.product.name": "forking",
        "ro.product.model": "forking adbd double",
        "ro.product.device": "forking",
    }

    def open_service(self, service: str, host: Any = None) -> ForkedShell:
        head, _, command = service.partition(":")
        if not head.startswith("shell"):
            raise errors.Closed(f"the forking adbd double serves shells only, not {service!r}")
        return ForkedShell(command, v2=",v2" in head)


def main() -> int:
    endpoint = AdbdEndpoint.on_emulator_port(ForkingDevice())
    server = RealAdbServer.start()
    try:
        serial = endpoint.emulator_serial
        assert serial is not None
        server.attach_emulator(endpoint.port)
        server.wait_for([serial], time.monotonic() + 10)
        print("ready", server.port, serial, flush=True)
        sys.stdin.read()
    finally:
        server.stop()
        endpoint.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
