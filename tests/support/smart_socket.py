"""Raw exchanges with an adb server's smart socket, byte for byte, for comparing two servers."""

from __future__ import annotations

import contextlib
import socket
import time


def exchange(port: int, *requests: str) -> bytes:
    """Send the requests on one connection (a pause after each), then read until the server closes
    or stays silent for 0.5 s (a sync stream waits for its client). No half-close: a client's end
    of stream closes the device stream on both servers, racing the device's output."""
    with socket.create_connection(("127.0.0.1", port), timeout=5.0) as sock:
        for text in requests:
            sock.sendall(b"%04x" % len(text) + text.encode())
            time.sleep(0.01)
        sock.settimeout(0.5)
        reply = bytearray()
        with contextlib.suppress(TimeoutError):
            while chunk := sock.recv(65536):
                reply += chunk
    return bytes(reply)
