"""The emulator console: the text protocol `adb emu` and telnet speak on the console port (the
number in `emulator-<port>`), for what the gRPC controller does not offer: the emulated network's
speed and latency (`network speed|delay|status`).

As the emulator's android/console.cpp serves it (aosp platform/external/qemu; emulator-facts.md §5):
a banner ending in `OK`, asking for `auth <token>` when the user's `~/.emulator_console_auth_token`
is not empty (console_auth.cpp; an empty file turns auth off); each command's output lines, then
`OK`, or one `KO: ...` line saying why it failed. Lines end in CR LF. The console listens on
loopback only.
"""

from __future__ import annotations

import contextlib
import re
import socket
import time
from dataclasses import dataclass
from pathlib import Path

from pytest_mobile_agent.errors import ControllerError, Timeout

TOKEN_FILE = ".emulator_console_auth_token"
CONSOLE_TIMEOUT = 5.0
AUTH_REQUIRED = "Authentication required"
_STATUS_SPEED = re.compile(r"(download|upload) speed:\s+(\d+) bits/s")
_STATUS_LATENCY = re.compile(r"(minimum|maximum) latency:\s+(\d+) ms")


def default_token_path() -> Path:
    """Where the emulator and `adb emu` keep the console's token: the user's home."""
    return Path.home() / TOKEN_FILE


@dataclass(frozen=True)
class NetworkStatus:
    """`network status`: the emulated network's speeds (bits per second, 0 for no limit) and latency (ms)."""

    download_bps: int
    upload_bps: int
    min_latency_ms: int
    max_latency_ms: int


class Console:
    """One authenticated console connection; `close()` (or `with`) ends it."""

    def __init__(self, sock: socket.socket, serial: str, port: int, timeout: float) -> None:
        self._sock = sock
        self._buffer = b""
        self.serial = serial
        self.port = port
        self.timeout = timeout

    @classmethod
    def connect(cls, port: int, *, serial: str = "", token_path: Path | None = None, host: str = "127.0.0.1",
                timeout: float = CONSOLE_TIMEOUT) -> Console:
        """Connect, read the banner and authenticate when the console asks; ControllerError naming
        the serial when nothing listens or the token cannot be read."""
        name = serial or f"the emulator console on port {port}"
        try:
            sock = socket.create_connection((host, port), timeout=timeout)
        except OSError as exc:
            raise ControllerError(f"the emulator console of {name} on {host}:{port} is not reachable: "
                                  f"{exc.strerror or exc}") from None
        console = cls(sock, serial, port, timeout)
        try:
            banner = console._read_reply(time.monotonic() + timeout)
            if any(AUTH_REQUIRED in line for line in banner):
                console._authenticate(token_path or default_token_path(), name)
        except BaseException:
            console.close()
            raise
        return console

    def _authenticate(self, token_path: Path, name: str) -> None:
        try:
            token = token_path.read_text().strip()
        except OSError as exc:
            raise ControllerError(f"the emulator console of {name} asks for the token in {token_path}, which "
                                  f"cannot be read: {exc.strerror or exc}") from None
        self.run(f"auth {token}", what="auth <token>")

    def run(self, command: str, *, what: str | None = None) -> list[str]:
        """Send one command; the lines it printed before `OK`. ControllerError with the console's
        `KO:` line when it failed."""
        try:
            self._sock.sendall(command.encode() + b"\r\n")
        except OSError as exc:
            raise ControllerError(f"the emulator console of {self.serial or self.port} closed: {exc}") from None
        lines = self._read_reply(time.monotonic() + self.timeout)
        if lines and lines[-1].startswith("KO"):
            raise ControllerError(f"the emulator console's `{what or command}` failed: {lines[-1]}")
        return lines

    def _read_reply(self, deadline: float) -> list[str]:
        """Lines up to and including the one that ends a reply (`OK`, or `KO...`); `OK` left out."""
        lines: list[str] = []
        while True:
            line = self._read_line(deadline)
            if line == "OK":
                return lines
            lines.append(line)
            if line.startswith("KO"):
                return lines

    def _read_line(self, deadline: float) -> str:
        while b"\n" not in self._buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise Timeout(f"the emulator console of {self.serial or self.port}", self.timeout)
            self._sock.settimeout(remaining)
            try:
                chunk = self._sock.recv(4096)
            except TimeoutError:
                continue
            except OSError as exc:
                raise ControllerError(f"the emulator console of {self.serial or self.port} failed: {exc}") from None
            if not chunk:
                raise ControllerError(f"the emulator console of {self.serial or self.port} closed the connection")
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line.decode("utf-8", "replace").rstrip("\r")

    # --- the commands the driver uses ------------------------------------------------------------

    def avd_name(self) -> str:
        lines = self.run("avd name")
        return lines[0].strip() if lines else ""

    def network_speed(self, speed: str) -> None:
        """`network speed SPEED`: a name (gsm, hscsd, gprs, edge, umts, hsdpa, lte, evdo, 5g, full),
        a number of kbit/s, or UP:DOWN."""
        self.run(f"network speed {speed}")

    def network_delay(self, delay: str) -> None:
        """`network delay DELAY`: a name (gsm, edge, umts, ..., none), milliseconds, or MIN:MAX."""
        self.run(f"network delay {delay}")

    def network_status(self) -> NetworkStatus:
        text = "\n".join(self.run("network status"))
        speeds = {kind: int(value) for kind, value in _STATUS_SPEED.findall(text)}
        latency = {kind: int(value) for kind, value in _STATUS_LATENCY.findall(text)}
        return NetworkStatus(speeds.get("download", 0), speeds.get("upload", 0), latency.get("minimum", 0),
                             latency.get("maximum", 0))

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self._sock.sendall(b"quit\r\n")
        self._sock.close()

    def __enter__(self) -> Console:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
