"""Raw exchanges with an adb server's smart socket, byte for byte, for comparing two servers."""

from __future__ import annotations

import contextlib
import socket
import time

# Requests after which the connection stays open for the client's next word (a sync stream, a
# transport switch): the read ends on silence.
_STAYS_OPEN = ("sync:", "host:tport:", "host:transport")


def exchange(port: int, *requests: str) -> bytes:
    """Send the requests on one connection (a pause after each), then read until the server closes
    (at most 5 s), or for a stream that waits for its client (sync, a transport switch) until 0.5 s of silence. A
    busy machine can keep the device's answer back longer than any fixed silence. No half-close:
    a client's end of stream closes the device stream on both servers, racing the device's output."""
    with socket.create_connection(("127.0.0.1", port), timeout=5.0) as sock:
        for text in requests:
            sock.sendall(b"%04x" % len(text) + text.encode())
            time.sleep(0.01)
        sock.settimeout(0.5 if requests[-1].startswith(_STAYS_OPEN) else 5.0)
        reply = bytearray()
        with contextlib.suppress(TimeoutError):
            while chunk := sock.recv(65536):
                reply += chunk
    return bytes(reply)
