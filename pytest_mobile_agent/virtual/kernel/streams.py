"""Byte channels inside the virtual device: pipes, open files, and the service streams.

The device has one lock (`Kernel.lock`, an RLock) that guards every pipe, process and socket;
each object that threads wait on has its own `threading.Condition` over that same lock, so there is
no lock ordering to get wrong and a signal can wake whichever condition its process sleeps on.

An `OpenFile` is the kernel's open file description: reference counted (`dup`/`release`), shared
by every process that inherited it, so a pipe reports end of file only when the last writer closed,
as pipe(2) does. That is what keeps a shell v2 stream open while a background process the shell
started still holds its standard output (adbd reads until both output pipes are closed).

`DeviceStream` is the seam's bidirectional byte stream (`send`, `recv(timeout)` with `b""` at the
end, `close`); `stream_pair()` makes two connected ends, as socketpair(2).
"""

from __future__ import annotations

import contextlib
import errno
import threading
import time
from collections.abc import Callable
from typing import Protocol

DEFAULT_PIPE_CAPACITY = 64 * 1024  # Linux's default pipe size


class Kernel:
    """The device's single lock, and conditions over it."""

    def __init__(self) -> None:
        self.lock = threading.RLock()

    def condition(self) -> threading.Condition:
        return threading.Condition(self.lock)


class Waiter(Protocol):
    """Who blocks: a process (interruptible by its signals) or a plain host thread."""

    def wait(self, cond: threading.Condition, ready: Callable[[], bool], deadline: float | None) -> bool:
        """Wait (lock held) until ready() or the deadline; True when ready."""
        ...


class PlainWaiter:
    """A host-side thread (a front): waits with no signals to care about."""

    def wait(self, cond: threading.Condition, ready: Callable[[], bool], deadline: float | None) -> bool:
        while not ready():
            if deadline is None:
                cond.wait()
                continue
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            cond.wait(remaining)
        return True


PLAIN = PlainWaiter()


class ByteStream(Protocol):
    """What the host connector of a reverse rule hands back, and what DeviceStream is."""

    def send(self, data: bytes) -> None: ...

    def recv(self, timeout: float | None = None) -> bytes: ...

    def close(self) -> None: ...


def _deadline(timeout: float | None) -> float | None:
    return None if timeout is None else time.monotonic() + max(0.0, timeout)


# --- open files ------------------------------------------------------------------------------------


class OpenFile:
    """An open file description shared by the fds that refer to it."""

    path = "?"

    def __init__(self) -> None:
        self.refs = 1

    def isatty(self) -> bool:
        return False

    def readable(self) -> bool:
        return True

    def writable(self) -> bool:
        return True

    def read(self, n: int, waiter: Waiter, deadline: float | None) -> bytes | None:
        """Up to n bytes; b"" at end of file; None when the deadline passed first."""
        raise OSError(errno.EBADF, "Bad file descriptor")

    def write(self, data: bytes, waiter: Waiter) -> None:
        """All of data; BrokenPipeError when no reader is left."""
        raise OSError(errno.EBADF, "Bad file descriptor")

    def dup(self) -> OpenFile:
        self.refs += 1
        return self

    def release(self) -> None:
        self.refs -= 1
        if self.refs == 0:
            self.on_last_close()

    def on_last_close(self) -> None:
        """Called (lock held) when the last fd referring to this description closed."""


class NullFile(OpenFile):
    """/dev/null: reads end at once, writes vanish."""

    path = "/dev/null"

    def read(self, n: int, waiter: Waiter, deadline: float | None) -> bytes | None:
        return b""

    def write(self, data: bytes, waiter: Waiter) -> None:
        return None


class Pipe:
    """A pipe(2): a bounded buffer between counted readers and writers."""

    def __init__(self, kernel: Kernel, capacity: int = DEFAULT_PIPE_CAPACITY) -> None:
        self.kernel = kernel
        self.cond = kernel.condition()
        self.buffer = bytearray()
        self.capacity = capacity
        self.readers = 0
        self.writers = 0

    def open_reader(self) -> PipeReader:
        with self.kernel.lock:
            self.readers += 1
            return PipeReader(self)

    def open_writer(self) -> PipeWriter:
        with self.kernel.lock:
            self.writers += 1
            return PipeWriter(self)

    # the operations, lock held by the caller or taken here (RLock)

    def read(self, n: int, waiter: Waiter, deadline: float | None) -> bytes | None:
        with self.kernel.lock:
            if not waiter.wait(
                self.cond, lambda: bool(self.buffer) or self.writers == 0 or self.readers == 0, deadline
            ):
                return None
            data = bytes(self.buffer[:n])
            del self.buffer[:n]
            self.cond.notify_all()
            return data

    def write(self, data: bytes, waiter: Waiter) -> None:
        view = memoryview(bytes(data))
        with self.kernel.lock:
            while view:
                waiter.wait(self.cond, lambda: self.readers == 0 or len(self.buffer) < self.capacity, None)
                if self.readers == 0:
                    raise BrokenPipeError(errno.EPIPE, "Broken pipe")
                room = self.capacity - len(self.buffer)
                self.buffer += view[:room]
                view = view[room:]
                self.cond.notify_all()

    def close_reader(self) -> None:
        with self.kernel.lock:
            self.readers -= 1
            if self.readers == 0:
                self.buffer.clear()
            self.cond.notify_all()

    def close_writer(self) -> None:
        with self.kernel.lock:
            self.writers -= 1
            self.cond.notify_all()


class PipeReader(OpenFile):
    path = "pipe:[read]"

    def __init__(self, pipe: Pipe) -> None:
        super().__init__()
        self.pipe = pipe

    def writable(self) -> bool:
        return False

    def read(self, n: int, waiter: Waiter, deadline: float | None) -> bytes | None:
        return self.pipe.read(n, waiter, deadline)

    def on_last_close(self) -> None:
        self.pipe.close_reader()


class PipeWriter(OpenFile):
    path = "pipe:[write]"

    def __init__(self, pipe: Pipe) -> None:
        super().__init__()
        self.pipe = pipe

    def readable(self) -> bool:
        return False

    def write(self, data: bytes, waiter: Waiter) -> None:
        self.pipe.write(data, waiter)

    def on_last_close(self) -> None:
        self.pipe.close_writer()


# --- the seam's stream -------------------------------------------------------------------------------


class DeviceStream:
    """One end of a bidirectional byte stream (a socketpair end, or a service's stream).

    `send` raises errors.Closed once either side closed; `recv(timeout)` returns b"" at the end and
    raises errors.Timeout when nothing arrived in time. `on_close` callbacks run once, after close.
    """

    def __init__(self, kernel: Kernel, inbound: Pipe, outbound: Pipe, label: str = "stream") -> None:
        self.kernel = kernel
        self._in = inbound
        self._out = outbound
        self.label = label
        self._closed = False
        self._on_close: list[Callable[[], None]] = []
        self.peer_uid = 2000

    @property
    def closed(self) -> bool:
        return self._closed

    def send(self, data: bytes, waiter: Waiter = PLAIN) -> None:
        from pytest_mobile_agent.errors import Closed

        if self._closed:
            raise Closed(f"{self.label}: send on a closed stream")
        try:
            self._out.write(data, waiter)
        except BrokenPipeError:
            raise Closed(f"{self.label}: the other side closed the stream") from None

    sendall = send

    def recv(self, timeout: float | None = None, waiter: Waiter = PLAIN, n: int = 256 * 1024) -> bytes:
        from pytest_mobile_agent.errors import Timeout

        if self._closed:
            return b""
        data = self._in.read(n, waiter, _deadline(timeout))
        if data is None:
            raise Timeout(f"{self.label}: recv", timeout)
        return data

    def at_eof(self) -> bool:
        """True when recv would return b"" at once."""
        with self.kernel.lock:
            return self._closed or (not self._in.buffer and self._in.writers == 0)

    def on_close(self, callback: Callable[[], None]) -> None:
        with self.kernel.lock:
            if not self._closed:
                self._on_close.append(callback)
                return
        callback()

    def close(self) -> None:
        with self.kernel.lock:
            if self._closed:
                return
            self._closed = True
            self._in.close_reader()
            self._out.close_writer()
            callbacks, self._on_close = self._on_close, []
        for callback in callbacks:
            callback()

    def shutdown_write(self) -> None:
        """Half-close: the peer reads end of file; we can still receive."""
        with self.kernel.lock:
            if self._out.writers:
                self._out.close_writer()


def stream_pair(kernel: Kernel, label: str = "stream",
                capacity: int = 1024 * 1024) -> tuple[DeviceStream, DeviceStream]:
    """Two connected DeviceStreams, as socketpair(2)."""
    a_to_b = Pipe(kernel, capacity)
    b_to_a = Pipe(kernel, capacity)
    for pipe in (a_to_b, b_to_a):
        pipe.readers = 1
        pipe.writers = 1
    return DeviceStream(kernel, b_to_a, a_to_b, label), DeviceStream(kernel, a_to_b, b_to_a, label)


def pump(source: ByteStream, sink: ByteStream, *, name: str) -> threading.Thread:
    """Copy source to sink on a daemon thread until either ends, then close both."""

    def run() -> None:
        try:
            while True:
                data = source.recv(None)
                if not data:
                    break
                sink.send(data)
        except Exception:  # noqa: BLE001 - any end of either stream ends the copy
            pass
        finally:
            for end in (source, sink):
                with contextlib.suppress(Exception):
                    end.close()

    thread = threading.Thread(target=run, name=name, daemon=True)
    thread.start()
    return thread
