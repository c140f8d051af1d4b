"""Chromium's DevTools answers relayed with the product Android names: `Chrome/<version>`.

The headless shell (virtual/web/chromium.py) names itself `HeadlessChrome/<version>` in
`Browser.getVersion`'s `product`; a WebView's and Chrome's DevTools on Android answer
`Chrome/<version>` (android_webview's AwContentBrowserClient::GetProduct returns
version_info::GetProductNameAndVersionForUserAgent()). `/json/version` is answered by the device
itself (devtools_socket.version_of); the WebSocket is chromium's own, so its downstream side
(chromium to the client) goes through `AndroidProductFrames`: the HTTP upgrade's answer passes as it
came, then whole frames are read (RFC 6455 section 5.2; a server's frames are not masked) and that
one field of a text frame is rewritten. Every other byte passes unchanged.
"""

from __future__ import annotations

from pytest_mobile_agent.virtual.kernel.streams import ByteStream

HEADLESS_PRODUCT = b'"product":"HeadlessChrome/'
ANDROID_PRODUCT = b'"product":"Chrome/'
TEXT = 0x1
FIN = 0x80
MASKED = 0x80


class AndroidProductFrames:
    """A ByteStream of chromium's side of a DevTools WebSocket, its product named as Android's."""

    def __init__(self, source: ByteStream) -> None:
        self.source = source
        self._buffer = bytearray()
        self._in_frames = False  # past the HTTP answer's head

    def recv(self, timeout: float | None = None) -> bytes:
        """The next whole frames (or the head); at the source's end, what is left as it came."""
        while True:
            ready = self._ready()
            if ready:
                return ready
            data = self.source.recv(timeout)
            if not data:
                rest = bytes(self._buffer)
                self._buffer.clear()
                return rest
            self._buffer += data

    def send(self, data: bytes) -> None:
        self.source.send(data)

    def close(self) -> None:
        self.source.close()

    def _ready(self) -> bytes:
        out = bytearray()
        if not self._in_frames:
            end = self._buffer.find(b"\r\n\r\n")
            if end < 0:
                return b""
            out += self._buffer[:end + 4]
            del self._buffer[:end + 4]
            self._in_frames = True
        while (frame := frame_length(self._buffer)) is not None:
            out += android_product(bytes(self._buffer[:frame]))
            del self._buffer[:frame]
        return bytes(out)


def frame_length(data: bytes | bytearray) -> int | None:
    """The length of the whole frame `data` starts with, or None while it is incomplete."""
    if len(data) < 2:
        return None
    header = length_bytes_end(data[1])
    if len(data) < header:
        return None
    length = data[1] & 0x7F if header == 2 else int.from_bytes(data[2:header], "big")
    if data[1] & MASKED:
        header += 4
    total = header + length
    return total if len(data) >= total else None


def length_bytes_end(second_byte: int) -> int:
    """Where a frame's length field ends (RFC 6455 5.2: 7 bits, or 16 or 64 more after 126 or 127)."""
    return {126: 4, 127: 10}.get(second_byte & 0x7F, 2)


def android_product(frame: bytes) -> bytes:
    """The frame with a headless product named as Android's; any other frame as it is."""
    if frame[0] != FIN | TEXT or frame[1] & MASKED or HEADLESS_PRODUCT not in frame:
        return frame
    payload = frame[length_bytes_end(frame[1]):].replace(HEADLESS_PRODUCT, ANDROID_PRODUCT, 1)
    return bytes([frame[0]]) + length_field(len(payload)) + payload


def length_field(length: int) -> bytes:
    """A server frame's length bytes (no mask bit), in the shortest form RFC 6455 allows."""
    if length < 126:
        return bytes([length])
    if length < 1 << 16:
        return bytes([126]) + length.to_bytes(2, "big")
    return bytes([127]) + length.to_bytes(8, "big")
