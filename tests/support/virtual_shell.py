"""A shell v2 client on a virtual device's own seam (`device.open_service`), as the adb client
drives a shell stream: stdin packets, close-stdin, and stdout, stderr and the exit status apart."""

from __future__ import annotations

import time

from pytest_mobile_agent import errors
from pytest_mobile_agent.adb.wire import (
    SHELL_CLOSE_STDIN,
    SHELL_EXIT,
    SHELL_STDERR,
    SHELL_STDIN,
    SHELL_STDOUT,
    ShellPacketDecoder,
    encode_shell_packet,
)
from pytest_mobile_agent.virtual.device import VirtualDevice


class ShellClient:
    """What the adb client does with a shell v2 stream, on the device's own seam."""

    def __init__(self, vdev: VirtualDevice, command: str, *, pty: bool = False) -> None:
        kind = "pty" if pty else "raw"
        self.stream = vdev.open_service(f"shell,v2,{kind}:{command}")
        self.decoder = ShellPacketDecoder()
        self.stdout = bytearray()
        self.stderr = bytearray()
        self.status: int | None = None
        self.ended = False

    def write(self, data: bytes) -> None:
        self.stream.send(encode_shell_packet(SHELL_STDIN, data))

    def close_stdin(self) -> None:
        self.stream.send(encode_shell_packet(SHELL_CLOSE_STDIN, b""))

    def pump(self, timeout: float) -> bool:
        """Read what arrives within timeout; False when nothing did."""
        try:
            data = self.stream.recv(timeout)
        except errors.Timeout:
            return False
        if not data:
            self.ended = True
            return True
        for kind, payload in self.decoder.feed(data):
            if kind == SHELL_STDOUT:
                self.stdout += payload
            elif kind == SHELL_STDERR:
                self.stderr += payload
            elif kind == SHELL_EXIT:
                self.status = payload[0]
        return True

    def read_until(self, needle: bytes, timeout: float = 2.0) -> bytes:
        deadline = time.monotonic() + timeout
        while needle not in self.stdout:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or self.ended:
                raise AssertionError(f"{needle!r} not in {bytes(self.stdout)!r}")
            self.pump(remaining)
        return bytes(self.stdout)

    def wait(self, timeout: float = 2.0) -> int:
        deadline = time.monotonic() + timeout
        while not self.ended:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError("the shell stream did not end")
            self.pump(remaining)
        assert self.status is not None
        return self.status

    def close(self) -> None:
        self.stream.close()


def run_shell(device: VirtualDevice, command: str, stdin: bytes = b"", timeout: float = 10.0) -> tuple[int, str, str]:
    """`adb shell COMMAND` on the device's seam: (status, stdout, stderr) as text."""
    status, out, err = device.shell(command, stdin=stdin, timeout=timeout)
    return status, out.decode(errors="replace"), err.decode(errors="replace")
