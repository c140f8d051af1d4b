"""What the tests of web content share: the skip without chromium, a raw HTTP exchange and a
minimal WebSocket client over any byte stream (a device stream, an adb stream), so the DevTools
sockets are checked with no client library of ours or anyone's in between."""

from __future__ import annotations

import base64
import json
import os
import struct
import time
from typing import Any, Protocol

import pytest

from pytest_mobile_agent.virtual.web.chromium import INSTALL_ADVICE, chromium_binary

needs_chromium = pytest.mark.skipif(chromium_binary() is None, reason=INSTALL_ADVICE)


class Stream(Protocol):
    def send(self, data: bytes) -> None: ...

    def recv(self, timeout: float | None = None) -> bytes: ...


def receive_until(stream: Stream, done: Any, timeout: float = 10.0) -> bytes:
    """Bytes from the stream until done(bytes so far) or its end; AssertionError at the timeout."""
    data = b""
    deadline = time.monotonic() + timeout
    while not done(data):
        left = deadline - time.monotonic()
        assert left > 0, f"no complete answer in {timeout} s: {data[:300]!r}"
        chunk = stream.recv(left)
        if not chunk:
            break
        data += chunk
    return data


def _complete_response(data: bytes) -> bool:
    head, sep, body = data.partition(b"\r\n\r\n")
    if not sep:
        return False
    length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n")
                   if line.lower().startswith(b"content-length:")), 0)
    return len(body) >= length


def http_get(stream: Stream, path: str, host: str | None = "127.0.0.1:9222") -> tuple[int, Any]:
    """GET path on the stream (keep-alive): the status and the JSON body."""
    header = f"Host: {host}\r\n" if host is not None else ""
    stream.send(f"GET {path} HTTP/1.1\r\n{header}\r\n".encode())
    data = receive_until(stream, _complete_response)
    head, _, body = data.partition(b"\r\n\r\n")
    status = int(head.split(b" ")[1])
    return status, json.loads(body) if body else None


class WebSocket:
    """RFC 6455 client frames over a byte stream: text messages, masked, unfragmented."""

    def __init__(self, stream: Stream, path: str, host: str | None = None) -> None:
        self.stream = stream
        key = base64.b64encode(os.urandom(16)).decode()
        header = f"Host: {host}\r\n" if host is not None else ""
        stream.send((f"GET {path} HTTP/1.1\r\n{header}Upgrade: websocket\r\nConnection: Upgrade\r\n"
                     f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        data = receive_until(stream, lambda d: b"\r\n\r\n" in d)
        head, _, self._buffer = data.partition(b"\r\n\r\n")
        self.status = int(head.split(b" ")[1])
        self._ids = 0

    def send_text(self, text: str) -> None:
        payload = text.encode()
        mask = os.urandom(4)
        length = len(payload)
        if length < 126:
            header = struct.pack("!BB", 0x81, 0x80 | length)
        elif length < 1 << 16:
            header = struct.pack("!BBH", 0x81, 0x80 | 126, length)
        else:
            header = struct.pack("!BBQ", 0x81, 0x80 | 127, length)
        self.stream.send(header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))

    def receive_text(self, timeout: float = 10.0) -> str:
        def frame_complete(extra: bytes) -> bool:
            return self._frame_length(self._buffer + extra) is not None

        self._buffer += receive_until(self.stream, frame_complete, timeout) if not frame_complete(b"") else b""
        size = self._frame_length(self._buffer)
        assert size is not None, "the WebSocket ended mid-frame"
        start, end = size
        payload, self._buffer = self._buffer[start:end], self._buffer[end:]
        return payload.decode()

    @staticmethod
    def _frame_length(data: bytes) -> tuple[int, int] | None:
        if len(data) < 2:
            return None
        length, start = data[1] & 0x7F, 2
        if length == 126:
            if len(data) < 4:
                return None
            length, start = struct.unpack("!H", data[2:4])[0], 4
        elif length == 127:
            if len(data) < 10:
                return None
            length, start = struct.unpack("!Q", data[2:10])[0], 10
        return (start, start + length) if len(data) >= start + length else None

    def command(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """A DevTools command and its answer (events before it skipped)."""
        self._ids += 1
        self.send_text(json.dumps({"id": self._ids, "method": method, "params": params or {}}))
        while True:
            message: dict[str, Any] = json.loads(self.receive_text())
            if message.get("id") == self._ids:
                return message
