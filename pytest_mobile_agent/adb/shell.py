"""Shell protocol v2 on top of an adb connection: whole commands and live streams.

`shell,v2,raw:CMD` keeps stdout and stderr apart and ends with the exit status; `shell,v2,pty:CMD`
runs the command on a pseudo-terminal (stdout only, flushed per line by C programs). Closing a
stream drops the connection, and adbd sends the command SIGHUP.
"""

from __future__ import annotations

import contextlib
import secrets
import shlex
import socket
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from pytest_mobile_agent.adb import wire
from pytest_mobile_agent.adb.connection import AdbConnection
from pytest_mobile_agent.arguments import check_text
from pytest_mobile_agent.errors import Closed, InvalidArgument, OutputLimit, ProtocolError, Timeout

_READ_SIZE = 65536
MAX_COMMAND = wire.MAX_REQUEST - len("shell,v2,raw:")
"""The longest command line: the service request `shell,v2,raw:CMD` is at most 64 KiB - 1 bytes."""


# --- quoting -----------------------------------------------------------------------------------


def quote(argument: str) -> str:
    """One argument for `sh -c`, quoted; NUL cannot cross a command line and is refused."""
    return shlex.quote(check_text("a shell argument", argument))


def join(argv: Iterable[str]) -> str:
    """A command line from its arguments, each quoted."""
    return " ".join(quote(arg) for arg in argv)


def command_line(cmd: str | Iterable[str]) -> str:
    """A command as given (a string is a shell line), or an argument list quoted into one."""
    line = check_text("a shell command", cmd) if isinstance(cmd, str) else join(cmd)
    if len(line.encode("utf-8")) > MAX_COMMAND:
        raise InvalidArgument(f"the shell command of {len(line.encode('utf-8'))} bytes is over the {MAX_COMMAND} "
                              "bytes an adb service request carries: push a script and run it instead")
    return line


# --- results -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class ShellOutput:
    """A finished command: its exit status and its stdout and stderr, kept apart."""

    exit_code: int
    stdout: bytes
    stderr: bytes

    def text(self) -> str:
        """stdout decoded (UTF-8, undecodable bytes replaced)."""
        return self.stdout.decode("utf-8", "replace")

    @property
    def ok(self) -> bool:
        return self.exit_code == 0


def _exit_code(data: bytes) -> int:
    if len(data) != 1:
        raise ProtocolError(f"shell exit packet of {len(data)} bytes, expected 1")
    return data[0]


class ShellStream:
    """A running command over shell v2. Reads take a timeout (seconds) or the connection's io timeout."""

    def __init__(self, conn: AdbConnection, command: str) -> None:
        self._conn = conn
        self._command = command
        self._decoder = wire.ShellPacketDecoder()
        self._pending: list[tuple[int, bytes]] = []
        self._line_buffer = bytearray()
        self._exit: int | None = None
        self._closed = False
        self.operation = f"shell `{command}`"

    @property
    def exit_code(self) -> int | None:
        return self._exit

    # --- writing ---------------------------------------------------------------------------------

    def write(self, data: bytes) -> None:
        """Send bytes to the command's stdin (in packets no larger than a sync chunk)."""
        view = memoryview(data)
        for start in range(0, len(view), wire.SYNC_MAX_CHUNK):
            packet = wire.encode_shell_packet(wire.SHELL_STDIN, bytes(view[start : start + wire.SYNC_MAX_CHUNK]))
            self._conn.sendall(packet, self.operation)

    def close_stdin(self, *, deadline: float | None = None, total: float | None = None) -> None:
        """End the command's stdin (a command reading it sees end of file)."""
        self._conn.sendall(wire.encode_shell_packet(wire.SHELL_CLOSE_STDIN, b""), self.operation,
                           deadline=deadline, total=total)

    def resize(self, rows: int, cols: int, x_pixels: int = 0, y_pixels: int = 0) -> None:
        """Tell a pty command its window size."""
        text = f"{rows}x{cols},{x_pixels}x{y_pixels}\x00".encode("ascii")
        self._conn.sendall(wire.encode_shell_packet(wire.SHELL_WINDOW_SIZE, text), self.operation)

    # --- reading ---------------------------------------------------------------------------------

    def read(self, timeout: float | None = None, *, deadline: float | None = None,
             total: float | None = None) -> tuple[int, bytes] | None:
        """The next (kind, data) of stdout (1) or stderr (2); None once the command has exited."""
        if deadline is None and timeout is not None:
            deadline, total = time.monotonic() + timeout, timeout
        while True:
            if self._pending:
                kind, data = self._pending.pop(0)
                if kind == wire.SHELL_EXIT:
                    self._exit = _exit_code(data)
                    continue
                if kind in (wire.SHELL_STDOUT, wire.SHELL_STDERR):
                    return kind, data
                continue  # stdin-side packets never come back; ignore anything else adbd adds
            if self._exit is not None:
                return None
            chunk = self._conn.recv(_READ_SIZE, self.operation, deadline=deadline, total=total)
            if not chunk:
                raise Closed(f"{self.operation}: the stream ended before the command's exit status")
            self._pending.extend(self._decoder.feed(chunk))

    def read_line(self, timeout: float | None = None) -> str | None:
        """The next line of stdout without its newline (stderr is skipped); None at exit.

        The timeout bounds the whole line. At exit, a last line without a newline is returned first.
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            newline = self._line_buffer.find(b"\n")
            if newline >= 0:
                line = bytes(self._line_buffer[:newline])
                del self._line_buffer[: newline + 1]
                return line.rstrip(b"\r").decode("utf-8", "replace")
            item = self.read(deadline=deadline, total=timeout)
            if item is None:
                if self._line_buffer:
                    line = bytes(self._line_buffer)
                    self._line_buffer.clear()
                    return line.decode("utf-8", "replace")
                return None
            kind, data = item
            if kind == wire.SHELL_STDOUT:
                self._line_buffer += data

    def collect(self, *, deadline: float | None = None, total: float | None = None,
                max_output: int | None = None) -> ShellOutput:
        """Read to the exit status; everything not read yet lands in the output. Past `max_output`
        bytes of stdout and stderr together, an OutputLimit (the stream is left to its closing)."""
        stdout = bytearray(self._line_buffer)
        self._line_buffer.clear()
        stderr = bytearray()
        while True:
            item = self.read(deadline=deadline, total=total)
            if item is None:
                break
            kind, data = item
            (stdout if kind == wire.SHELL_STDOUT else stderr).extend(data)
            if max_output is not None and len(stdout) + len(stderr) > max_output:
                raise OutputLimit(
                    f"{self.operation} wrote more than max_output={max_output} bytes",
                    advice="Read a long output as it comes with device.shell_stream(cmd), or raise max_output")
        assert self._exit is not None
        return ShellOutput(self._exit, bytes(stdout), bytes(stderr))

    def wait(self, timeout: float | None = None) -> int:
        """The exit status, discarding output not read yet."""
        if timeout is None:
            return self.collect().exit_code
        return self.collect(deadline=time.monotonic() + timeout, total=timeout).exit_code

    # --- ending ----------------------------------------------------------------------------------

    def close(self) -> None:
        """Drop the connection: adbd sends the command SIGHUP."""
        if not self._closed:
            self._closed = True
            self._conn.close()

    def __enter__(self) -> ShellStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        with contextlib.suppress(Exception):
            self.close()


def past_deadline(operation: str, deadline: float, started: float) -> Timeout:
    """The Timeout for a call whose deadline passed before it could start."""
    late = started - deadline
    return Timeout(operation, detail=f"its deadline had passed {late * 1000:.0f} ms before the call; nothing ran")


# --- one shell, many commands ------------------------------------------------------------------


class PersistentShell:
    """One `sh` on the device (`shell,v2,raw:` with no command: adbd starts `sh -` on pipes) that
    runs command after command, each followed by markers that carry its exit status.

    Each command goes out as `{ CMD
    } </dev/null; printf '%s%d\\n' TOKEN "$?"; printf '%s\\n' TOKEN >&2`: its stdin is /dev/null (so
    it cannot read the commands after it), its stdout ends at the token on stdout, followed by its
    status, and its stderr at the token on stderr (the two pipes reach the host in no set order).
    The token is random per shell. It is one shell session: `cd`, variables and traps carry over
    from one command to the next. A command that ends the shell (`exit 3`, a syntax error in a
    shell reading a pipe) returns the shell's exit status as its own, and the next call opens a
    new shell (in `run_many`, the commands written after it did not run: Closed says so); a
    command still running at its deadline is a Timeout and closes the shell.
    """

    def __init__(self, open_stream: Callable[[], ShellStream], io_timeout: float) -> None:
        self._open_stream = open_stream
        self._io_timeout = io_timeout
        self._stream: ShellStream | None = None
        self._token = b""
        self._stdout = bytearray()  # what arrived past the last command's markers: the next one's
        self._stderr = bytearray()
        self.opened = 0

    def run(self, cmd: str | Iterable[str], timeout: float | None = None) -> ShellOutput:
        """The command's exit status, stdout and stderr, as `Device.shell` gives them."""
        return self.run_many([cmd], timeout)[0]

    def run_many(self, cmds: Iterable[str | Iterable[str]], timeout: float | None = None) -> list[ShellOutput]:
        """Every command's result, in order; all are written at once, then read (one round trip
        for the lot). `timeout` bounds the whole call (default: the connection's io timeout)."""
        lines = [command_line(cmd) for cmd in cmds]
        if not lines:
            return []
        wait = self._io_timeout if timeout is None else timeout
        deadline = time.monotonic() + wait
        stream = self._open()
        try:
            stream.write(b"".join(self._wrapped(line) for line in lines))
            results: list[ShellOutput] = []
            while len(results) < len(lines):
                results.append(self._collect(stream, deadline, wait))
                if stream.exit_code is not None:  # the shell ended with this command
                    self.close()
                    if len(results) == len(lines):
                        break
                    raise Closed(
                        f"the persistent shell ended (exit status {stream.exit_code}) with "
                        f"`{lines[len(results) - 1]}`; {len(lines) - len(results)} commands after it did not run"
                    )
            return results
        except BaseException:
            self.close()  # whatever the shell was doing, its output no longer lines up with ours
            raise

    def close(self) -> None:
        stream, self._stream = self._stream, None
        if stream is not None:
            stream.close()

    def __enter__(self) -> PersistentShell:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- plumbing ------------------------------------------------------------------------------

    def _open(self) -> ShellStream:
        if self._stream is None:
            self._stream = self._open_stream()
            self._token = f"__mobile_agent_{secrets.token_hex(8)}_".encode("ascii")
            self._stdout.clear()
            self._stderr.clear()
            self.opened += 1
        return self._stream

    def _wrapped(self, line: str) -> bytes:
        token = self._token.decode("ascii")
        return (f"{{ {line}\n}} </dev/null; printf '%s%d\\n' {token} \"$?\"; printf '%s\\n' {token} >&2\n"
                ).encode()

    def _collect(self, stream: ShellStream, deadline: float, total: float) -> ShellOutput:
        token, stdout, stderr = self._token, self._stdout, self._stderr
        status: int | None = None
        err_end: int | None = None
        while status is None or err_end is None:
            if status is None:
                status = _status_after(stdout, token)
            if err_end is None:
                err_end = _find_line(stderr, token)
            if status is not None and err_end is not None:
                break
            _ack_at_once(stream)
            item = stream.read(deadline=deadline, total=total)
            if item is None:  # the shell exited: its status is this command's
                assert stream.exit_code is not None
                return ShellOutput(stream.exit_code, bytes(stdout), bytes(stderr))
            kind, data = item
            (stdout if kind == wire.SHELL_STDOUT else stderr).extend(data)
        out_end = stdout.find(token)
        result = ShellOutput(status, bytes(stdout[:out_end]), bytes(stderr[:err_end]))
        del stdout[: stdout.index(b"\n", out_end) + 1]
        del stderr[: err_end + len(token) + 1]
        return result


def _ack_at_once(stream: ShellStream) -> None:
    """TCP_QUICKACK before a read (Linux; it lapses after each): the markers come back as two small
    writes, the second of which the server holds under Nagle until our acknowledgement, which
    Linux would otherwise delay up to 40 ms (as on the agent's connection, docs/performance.md)."""
    quickack = getattr(socket, "TCP_QUICKACK", None)
    if quickack is not None:
        with contextlib.suppress(OSError):
            stream._conn.sock.setsockopt(socket.IPPROTO_TCP, quickack, 1)


def _status_after(stdout: bytearray, token: bytes) -> int | None:
    """The exit status printed after the token, once its line is complete."""
    at = stdout.find(token)
    if at < 0:
        return None
    end = stdout.find(b"\n", at)
    if end < 0:
        return None
    digits = bytes(stdout[at + len(token):end])
    if not (digits.isascii() and digits.isdigit()):
        raise ProtocolError(f"persistent shell: a status line {digits[:40]!r} after the marker")
    return int(digits)


def _find_line(data: bytearray, token: bytes) -> int | None:
    at = data.find(token + b"\n")
    return None if at < 0 else at
