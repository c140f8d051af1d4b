"""The fronts' one way to serve a listening socket on loopback.

`bind_loopback(port)` listens on 127.0.0.1 (never another address: the double is reachable from
this host only); `reserve_emulator_port` takes the first free odd port of 5555..5585, where an adb
server looks for emulators. `AcceptLoop` serves a listener: it accepts on a thread of its own (in
slices, so a stop is seen), hands each connection to its front's `serve(sock)` on a thread of its
own, keeps the connections being served, and closes in steps a front orders as it needs:
`close()` (no more connections), `shut_connections()` (the live ones shut down), `join()`.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Callable

ACCEPT_SLICE_S = 0.25  # how long an accept waits before it looks at the stop flag again
ADBD_PORTS = range(5555, 5586, 2)  # the ports an adb server scans for emulators


def bind_loopback(port: int) -> socket.socket:
    """A listening socket on 127.0.0.1:port (0: a free one)."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # Linux: TIME_WAIT only, never a live listener
    try:
        listener.bind(("127.0.0.1", port))
        listener.listen(16)
    except OSError:
        listener.close()
        raise
    listener.settimeout(ACCEPT_SLICE_S)
    return listener


def reserve_emulator_port(preferred: int | None = None, ports: range = ADBD_PORTS) -> socket.socket | None:
    """A listener on ``preferred`` when free, else on the first free odd port of 5555..5585."""
    candidates = [preferred] if preferred in ports else []
    for port in [*candidates, *ports]:
        try:
            return bind_loopback(port)
        except OSError:
            continue
    return None


class AcceptLoop:
    """One listener served until it is closed: `serve(sock)` runs for each connection on a thread
    named `connection_name` and owns the socket (it closes it); `nodelay` sets TCP_NODELAY on each
    accepted TCP connection."""

    def __init__(self, listener: socket.socket, serve: Callable[[socket.socket], None], *, name: str,
                 connection_name: str, nodelay: bool = True) -> None:
        self.listener = listener
        listener.settimeout(ACCEPT_SLICE_S)
        self._serve = serve
        self._connection_name = connection_name
        self._nodelay = nodelay
        self.stopped = threading.Event()
        self._lock = threading.Lock()
        self._live: dict[socket.socket, threading.Thread] = {}
        self._thread = threading.Thread(target=self._accept, name=name, daemon=True)

    @property
    def port(self) -> int:
        """The TCP port listened on (0 for a unix socket)."""
        return int(self.listener.getsockname()[1]) if self.listener.family == socket.AF_INET else 0

    def start(self) -> AcceptLoop:
        self._thread.start()
        return self

    def _accept(self) -> None:
        while not self.stopped.is_set():
            try:
                sock, _ = self.listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return  # the listener was closed
            if self._nodelay:
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            thread = threading.Thread(target=self._serve_one, args=(sock,), name=self._connection_name, daemon=True)
            with self._lock:
                if self.stopped.is_set():
                    sock.close()
                    return
                self._live[sock] = thread
            thread.start()

    def _serve_one(self, sock: socket.socket) -> None:
        try:
            self._serve(sock)
        finally:
            with self._lock:
                self._live.pop(sock, None)

    def connections(self) -> list[socket.socket]:
        """The connections being served now."""
        with self._lock:
            return list(self._live)

    def close(self) -> None:
        """Accept nothing more: the listener closes (which wakes the accept at once on Linux)."""
        self.stopped.set()
        with contextlib.suppress(OSError):
            self.listener.shutdown(socket.SHUT_RDWR)
        with contextlib.suppress(OSError):
            self.listener.close()

    def shut_connections(self) -> None:
        """Shut every live connection down both ways: its `serve` sees the end and returns."""
        for sock in self.connections():
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    def join(self, timeout: float, *, connections: bool = False) -> None:
        """Wait for the accept thread (and, with `connections`, the connections' threads)."""
        if self._thread is not threading.current_thread() and self._thread.ident is not None:
            self._thread.join(timeout=timeout)
        if connections:
            with self._lock:
                threads = list(self._live.values())
            for thread in threads:
                if thread is not threading.current_thread():
                    thread.join(timeout=timeout)
