"""What the device tests leave on a target, named so that it can be found and deleted: files and
sockets `mobile-agent-it-*`, a host listener a reverse rule reaches, and the rule itself."""

from __future__ import annotations

import contextlib
import secrets
import socket
import threading
from collections.abc import Iterator

from pytest_mobile_agent.adb import Device


def it_name(what: str) -> str:
    """A per-test name on the device: mobile-agent-it-<what>-<8 hex digits>."""
    return f"mobile-agent-it-{what}-{secrets.token_hex(4)}"


class HostListener:
    """A loopback listener on the host that a reverse rule connects to; echoes with a prefix."""

    def __init__(self, prefix: bytes = b"host:") -> None:
        self.prefix = prefix
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.sock.settimeout(0.2)
        self.port = int(self.sock.getsockname()[1])
        self.accepted = 0
        self._stop = threading.Event()
        self._conns: list[socket.socket] = []
        self._thread = threading.Thread(target=self._serve, name="it-host-listener", daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self.accepted += 1
            self._conns.append(conn)
            threading.Thread(target=self._echo, args=(conn,), daemon=True).start()

    def _echo(self, conn: socket.socket) -> None:
        conn.settimeout(10.0)
        with contextlib.suppress(OSError):
            while True:
                data = conn.recv(65536)
                if not data:
                    break
                conn.sendall(self.prefix + data)
        conn.close()

    def close(self) -> None:
        self._stop.set()
        self.sock.close()
        for conn in self._conns:
            with contextlib.suppress(OSError):
                conn.close()
        self._thread.join(timeout=2.0)


@contextlib.contextmanager
def reverse_rule(device: Device, listener: HostListener) -> Iterator[str]:
    """A live abstract socket on the device: a reverse rule to the host listener.

    The rule is removed only after the body has closed every connection through it (the adb server
    aborts when a device-side connection arrives for a reverse rule it already dropped, spike S6).
    """
    name = it_name("reverse")
    device.reverse(f"localabstract:{name}", f"tcp:{listener.port}")
    try:
        yield name
    finally:
        device.remove_reverse(f"localabstract:{name}")
