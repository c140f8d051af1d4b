"""Pseudo-terminals: what adbd gives a `shell,v2,pty:` (or an interactive) shell.

The line discipline is the default one of a fresh pty: canonical input (a read returns at most one
line; ^D at the start of a line is end of file; ^C sends SIGINT to the foreground process group),
ICRNL (a carriage return typed arrives as a newline), ECHO (what the host types comes back on the
output, newlines as CR LF) and ONLCR on output ("\\n" written by a program leaves as "\\r\\n").
Standard output and standard error of the programs are the same terminal, so they arrive merged.
The master side is the shell service: `emit(bytes)` takes the terminal's output, and `all_closed`
is called when the last slave fd closed (the master then reads end of file, as adbd sees EIO).
After a hangup (the service closed) a write to the slave fails with EIO.
"""

from __future__ import annotations

import errno
import threading
from collections.abc import Callable

from pytest_mobile_agent.virtual.kernel.streams import Kernel, OpenFile, Waiter


class Pty:
    def __init__(self, kernel: Kernel, name: str, emit: Callable[[bytes, Waiter | None], None],
                 all_closed: Callable[[], None], interrupt: Callable[[], None]) -> None:
        self.kernel = kernel
        self.name = name
        self.cond: threading.Condition = kernel.condition()
        self._emit = emit
        self._all_closed = all_closed
        self._interrupt = interrupt
        self.chunks: list[bytes] = []  # complete lines, or b"" for an end of file typed
        self.partial = bytearray()
        self.slaves = 0
        self.hung_up = False
        self.echo = True
        self.rows = 24
        self.cols = 80

    def open_slave(self) -> TtySlave:
        with self.kernel.lock:
            self.slaves += 1
            return TtySlave(self)

    # master side

    def master_write(self, data: bytes) -> None:
        """What the host typed, through the line discipline."""
        with self.kernel.lock:
            echoed = bytearray()
            for byte in data:
                c = bytes([byte])
                if c == b"\r":
                    c = b"\n"
                if c == b"\x03":
                    self.partial.clear()
                    echoed += b"^C\r\n"
                    self._interrupt()
                    continue
                if c == b"\x04":
                    self.chunks.append(bytes(self.partial))
                    self.partial.clear()
                    continue
                if c in (b"\x7f", b"\x08"):
                    if self.partial:
                        self.partial = self.partial[:-1]
                        echoed += b"\b \b"
                    continue
                self.partial += c
                echoed += b"\r\n" if c == b"\n" else c
                if c == b"\n":
                    self.chunks.append(bytes(self.partial))
                    self.partial.clear()
            self.cond.notify_all()
            if self.echo and echoed and self.slaves:
                self._emit(bytes(echoed), None)

    def close_input(self) -> None:
        """The host closed its input: the reader gets end of file (as ^D on an empty line)."""
        with self.kernel.lock:
            if self.partial:
                self.chunks.append(bytes(self.partial))
                self.partial.clear()
            self.chunks.append(b"")
            self.cond.notify_all()

    def hang_up(self) -> None:
        with self.kernel.lock:
            self.hung_up = True
            self.cond.notify_all()

    # slave side

    def slave_read(self, n: int, waiter: Waiter, deadline: float | None) -> bytes | None:
        with self.kernel.lock:
            if not waiter.wait(self.cond, lambda: bool(self.chunks) or self.hung_up, deadline):
                return None
            if not self.chunks:
                return b""
            chunk = self.chunks[0]
            if len(chunk) <= n:
                self.chunks.pop(0)
                return chunk
            self.chunks[0] = chunk[n:]
            return chunk[:n]

    def slave_write(self, data: bytes, waiter: Waiter) -> None:
        with self.kernel.lock:
            if self.hung_up:
                raise OSError(errno.EIO, "I/O error")
        self._emit(data.replace(b"\n", b"\r\n"), waiter)

    def slave_closed(self) -> None:
        with self.kernel.lock:
            self.slaves -= 1
            if self.slaves == 0:
                self._all_closed()


class TtySlave(OpenFile):
    def __init__(self, pty: Pty) -> None:
        super().__init__()
        self.pty = pty
        self.path = pty.name

    def isatty(self) -> bool:
        return True

    def read(self, n: int, waiter: Waiter, deadline: float | None) -> bytes | None:
        return self.pty.slave_read(n, waiter, deadline)

    def write(self, data: bytes, waiter: Waiter) -> None:
        self.pty.slave_write(data, waiter)

    def on_last_close(self) -> None:
        self.pty.slave_closed()
