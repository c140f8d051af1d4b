"""Reading a byte stream to its end in tests: a device stream (the seam's `recv(timeout)`, b"" at
the end) or a host socket (closed, or reset for unread input)."""

from __future__ import annotations

import socket
from typing import Protocol


class ByteStream(Protocol):
    def recv(self, timeout: float | None = None) -> bytes: ...


def read_to_end(stream: ByteStream, timeout: float = 2.0) -> bytes:
    """Everything the stream sends until its end; each read waits at most `timeout` (the device
    stream raises errors.Timeout past it)."""
    out = bytearray()
    while chunk := stream.recv(timeout):
        out += chunk
    return bytes(out)


def read_socket_to_end(sock: socket.socket) -> bytes:
    """Everything until the peer closes (a reset, for unread garbage, is a close too)."""
    out = bytearray()
    while True:
        try:
            chunk = sock.recv(65536)
        except ConnectionResetError:
            return bytes(out)
        if not chunk:
            return bytes(out)
        out += chunk
