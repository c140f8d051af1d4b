"""What the web room needs of a device: a shell and the adb client's `localabstract:` streams.

`adb.Device` is one (through any adb server, a remote `tcp:HOST:PORT/SERIAL` one too); the tests
give a scripted one whose abstract names lead to a real chromium on loopback.
"""

from __future__ import annotations

import socket
from typing import Protocol


class ShellText(Protocol):
    def text(self) -> str: ...


class ByteStream(Protocol):
    """A connected byte stream to a device's abstract socket (`adb.AdbStream` is one)."""

    @property
    def socket(self) -> socket.socket: ...

    def close(self) -> None: ...


class DeviceSockets(Protocol):
    """The device as the web room uses it."""

    @property
    def serial(self) -> str: ...

    def shell(self, cmd: str) -> ShellText: ...

    def open_abstract(self, name: str) -> ByteStream: ...
