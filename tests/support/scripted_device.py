"""A scripted device behind the fronts: the seam (`open_service`) and nothing more.

The fronts are tested on their own protocol with it; the device model's behaviour is tested with
the model itself (the real adb server tests use the real one when it is there).
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from typing import Any

from pytest_mobile_agent import errors
from pytest_mobile_agent.adb import wire


class QueueStream:
    """A DeviceStream whose other end is a script: bytes in, bytes out, b"" at the end."""

    def __init__(self) -> None:
        self.outbound: queue.Queue[bytes] = queue.Queue()  # device -> front
        self.received = bytearray()  # front -> device
        self.closed = threading.Event()
        self.on_data: Callable[[QueueStream, bytes], None] | None = None

    def send(self, data: bytes) -> None:
        if self.closed.is_set():
            raise errors.Closed("closed")
        self.received += data
        if self.on_data is not None:
            self.on_data(self, data)

    def recv(self, timeout: float | None = None) -> bytes:
        if self.closed.is_set() and self.outbound.empty():
            return b""
        try:
            return self.outbound.get(timeout=timeout)
        except queue.Empty:
            raise errors.Timeout("recv", timeout) from None

    def emit(self, data: bytes) -> None:
        self.outbound.put(data)

    def end(self) -> None:
        self.outbound.put(b"")

    def close(self) -> None:
        if not self.closed.is_set():
            self.closed.set()
            self.outbound.put(b"")


class ScriptedDevice:
    """Services: `echo:` (echoes), `shell,v2,...:echo TEXT` (stdout and exit 0), `sink:` (keeps
    what it gets), `tcp:N`/`localabstract:N` only when listening; anything else is refused."""

    properties = {
        "ro.product.name": "sdk_gphone64_x86_64",
        "ro.product.model": "sdk_gphone64_x86_64",
        "ro.product.device": "emu64x",
    }

    def __init__(self) -> None:
        self.reverse_rules: dict[str, Any] = {}
        self.adbd_restart_listeners: list[Callable[[], None]] = []
        self.opened: list[str] = []
        self.streams: list[QueueStream] = []
        self.hosts: list[Any] = []

    def adbd_restarted(self) -> None:
        """Nothing to do: this device has no `root:` service."""

    def open_service(self, service: str, host: Any = None) -> QueueStream:
        self.opened.append(service)
        self.hosts.append(host)
        stream = QueueStream()
        self.streams.append(stream)
        if service == "echo:":
            stream.on_data = lambda s, data: s.emit(data)
        elif service == "sink:":
            pass
        elif service.startswith("shell,v2,") and ":echo " in service:
            text = service.split(":echo ", 1)[1]
            stream.emit(wire.encode_shell_packet(wire.SHELL_STDOUT, text.encode() + b"\n"))
            stream.emit(wire.encode_shell_packet(wire.SHELL_EXIT, b"\0"))
            stream.end()
        elif service.startswith("shell:echo "):
            stream.emit(service[len("shell:echo ") :].encode() + b"\n")
            stream.end()
        else:
            raise errors.Closed(f"no service {service!r}")
        return stream
