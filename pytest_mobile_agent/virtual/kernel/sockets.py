"""Sockets on the virtual device: the abstract unix namespace and loopback TCP ports.

`listen_abstract(name, owner_pid)` / `listen_tcp(port, owner_pid)` bind a Listener (AddressInUse
when the name or port is taken, as EADDRINUSE); `accept(timeout)` returns `(DeviceStream, peer_uid)`,
the uid of the connecting process as SO_PEERCRED gives it (2000 for the shell user and for adbd's
own connections, 0 for a root client such as a program run under `su 0`). A listener closes when
its owner process dies, as the kernel closes the fds of a dead process; pending connections then see
end of file. `connect_abstract(name, peer_uid)` with nobody listening raises errors.Closed
("Connection refused"), which is how a `localabstract:` service to a missing socket fails.

A listener may instead hand each connection to a callback (`on_connect`): adbd's reverse listeners do,
to join the connection to the host.
"""

from __future__ import annotations

import itertools
import logging
import time
from collections.abc import Callable

from pytest_mobile_agent import errors
from pytest_mobile_agent.virtual.kernel.numbers import is_decimal
from pytest_mobile_agent.virtual.kernel.process import ProcessTable
from pytest_mobile_agent.virtual.kernel.streams import (
    PLAIN,
    DeviceStream,
    Kernel,
    Waiter,
    stream_pair,
)

log = logging.getLogger("pytest_mobile_agent.virtual")

BACKLOG = 128
EPHEMERAL_FIRST = 37000
_INODES = itertools.count(48213)  # the socket inodes /proc/net/unix shows (kernel/net_unix.py)

ConnectHandler = Callable[[DeviceStream, int], None]


class AddressInUse(errors.MobileAgentError):
    """A socket name or port of the device is already bound (EADDRINUSE)."""


class Listener:
    """A bound, listening socket of the device."""

    def __init__(self, namespace: SocketNamespace, kind: str, address: str, owner_pid: int,
                 owner_uid: int, on_connect: ConnectHandler | None = None) -> None:
        self.namespace = namespace
        self.kind = kind  # "localabstract" | "tcp"
        self.address = address
        self.owner_pid = owner_pid
        self.owner_uid = owner_uid
        self.on_connect = on_connect
        self.cond = namespace.kernel.condition()
        self.backlog: list[tuple[DeviceStream, int]] = []
        self.closed = False
        self.inode = next(_INODES)

    @property
    def spec(self) -> str:
        return f"{self.kind}:{self.address}"

    @property
    def port(self) -> int:
        return int(self.address) if self.kind == "tcp" else 0

    def accept(self, timeout: float | None = None, waiter: Waiter = PLAIN) -> tuple[DeviceStream, int]:
        """The next connection and its peer's uid; errors.Timeout, or errors.Closed once closed."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self.namespace.kernel.lock:
            if not waiter.wait(self.cond, lambda: bool(self.backlog) or self.closed, deadline):
                raise errors.Timeout(f"accept on {self.spec}", timeout)
            if not self.backlog:
                raise errors.Closed(f"{self.spec}: the listener is closed")
            return self.backlog.pop(0)

    def deliver(self, server_end: DeviceStream, peer_uid: int) -> None:
        with self.namespace.kernel.lock:
            if self.on_connect is None:
                if len(self.backlog) >= BACKLOG:
                    raise errors.Closed(f"connect to {self.spec}: Resource temporarily unavailable")
                self.backlog.append((server_end, peer_uid))
                self.cond.notify_all()
                return
        self.on_connect(server_end, peer_uid)

    def close(self) -> None:
        with self.namespace.kernel.lock:
            if self.closed:
                return
            self.closed = True
            pending, self.backlog = self.backlog, []
            self.namespace._unbind(self)
            self.cond.notify_all()
        for stream, _ in pending:
            stream.close()

    def __enter__(self) -> Listener:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class SocketNamespace:
    """The device's abstract socket names and TCP ports."""

    def __init__(self, kernel: Kernel, processes: ProcessTable) -> None:
        self.kernel = kernel
        self.processes = processes
        self._abstract: dict[str, Listener] = {}
        self._tcp: dict[int, Listener] = {}
        self._next_port = EPHEMERAL_FIRST

    # --- binding ------------------------------------------------------------------------------------

    def _owner_uid(self, owner_pid: int) -> int:
        proc = self.processes.get(owner_pid)
        return proc.uid if proc is not None else 2000

    def _watch_owner(self, listener: Listener) -> None:
        proc = self.processes.get(listener.owner_pid)
        if proc is not None and proc.pid >= 3000:
            proc.at_death(listener.close)

    def listen_abstract(self, name: str, owner_pid: int, *, on_connect: ConnectHandler | None = None) -> Listener:
        if not name or "\0" in name or len(name.encode()) > 107:
            raise errors.InvalidArgument(f"invalid abstract socket name {name!r}")
        with self.kernel.lock:
            if name in self._abstract:
                raise AddressInUse(f"localabstract:{name}: Address already in use")
            listener = Listener(self, "localabstract", name, owner_pid, self._owner_uid(owner_pid), on_connect)
            self._abstract[name] = listener
            self._watch_owner(listener)
            return listener

    def listen_tcp(self, port: int, owner_pid: int, *, on_connect: ConnectHandler | None = None) -> Listener:
        with self.kernel.lock:
            if port == 0:
                while self._next_port in self._tcp:
                    self._next_port += 1
                port = self._next_port
                self._next_port += 1
            if not 0 < port < 65536:
                raise errors.InvalidArgument(f"invalid port {port}")
            if port in self._tcp:
                raise AddressInUse(f"tcp:{port}: Address already in use")
            listener = Listener(self, "tcp", str(port), owner_pid, self._owner_uid(owner_pid), on_connect)
            self._tcp[port] = listener
            self._watch_owner(listener)
            return listener

    def _unbind(self, listener: Listener) -> None:
        if listener.kind == "tcp":
            if self._tcp.get(listener.port) is listener:
                del self._tcp[listener.port]
        elif self._abstract.get(listener.address) is listener:
            del self._abstract[listener.address]

    def abstract_names(self) -> list[str]:
        with self.kernel.lock:
            return sorted(self._abstract)

    def abstract_listeners(self) -> list[Listener]:
        """The bound abstract names' listeners, in the order they were bound."""
        with self.kernel.lock:
            return sorted(self._abstract.values(), key=lambda listener: listener.inode)

    def tcp_ports(self) -> list[int]:
        with self.kernel.lock:
            return sorted(self._tcp)

    def find(self, spec: str) -> Listener | None:
        with self.kernel.lock:
            if spec.startswith("localabstract:"):
                return self._abstract.get(spec[len("localabstract:"):])
            if spec.startswith("tcp:") and is_decimal(spec[4:]):
                return self._tcp.get(int(spec[4:]))
            return None

    # --- connecting -----------------------------------------------------------------------------------

    def _connect(self, listener: Listener | None, spec: str, peer_uid: int) -> DeviceStream:
        if listener is None or listener.closed:
            raise errors.Closed(f"connect to {spec}: Connection refused")
        client, server = stream_pair(self.kernel, label=spec)
        client.peer_uid = listener.owner_uid
        server.peer_uid = peer_uid
        listener.deliver(server, peer_uid)
        return client

    def connect_abstract(self, name: str, peer_uid: int = 2000) -> DeviceStream:
        with self.kernel.lock:
            listener = self._abstract.get(name)
        return self._connect(listener, f"localabstract:{name}", peer_uid)

    def connect_tcp(self, port: int, peer_uid: int = 2000) -> DeviceStream:
        with self.kernel.lock:
            listener = self._tcp.get(port)
        return self._connect(listener, f"tcp:{port}", peer_uid)

    def connect_tcp_spec(self, spec: str, peer_uid: int = 2000) -> DeviceStream:
        """`tcp:PORT` or `tcp:HOST:PORT` (a loopback host; any other host is refused)."""
        rest = spec[len("tcp:"):]
        host, _, port_text = rest.rpartition(":")
        if host not in ("", "localhost", "127.0.0.1", "::1", "[::1]"):
            raise errors.Closed(f"connect to {spec}: Network is unreachable")
        if not is_decimal(port_text) or not 0 < int(port_text) < 65536:
            raise errors.Closed(f"connect to {spec}: invalid port")
        return self.connect_tcp(int(port_text), peer_uid)

    def close_all(self) -> None:
        with self.kernel.lock:
            listeners = list(self._abstract.values()) + list(self._tcp.values())
        for listener in listeners:
            listener.close()



