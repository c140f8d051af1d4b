"""Chromium's DevTools frames relayed with the product Android names (virtual/web/product_frames.py):
whole frames in, the one field rewritten, every other byte as it came, any split of the bytes."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from pytest_mobile_agent.virtual.web.product_frames import AndroidProductFrames, frame_length, length_field

HEAD = b"HTTP/1.1 101 WebSocket Protocol Handshake\r\nUpgrade: WebSocket\r\nConnection: Upgrade\r\n\r\n"


def text_frame(payload: bytes, *, fin: bool = True) -> bytes:
    return bytes([(0x80 if fin else 0) | 0x1]) + length_field(len(payload)) + payload


def version_answer(product: str, padding: str = "") -> bytes:
    return json.dumps({"id": 1, "result": {"protocolVersion": "1.3", "product": product, "padding": padding}},
                      separators=(",", ":")).encode()


class Chunks:
    """A source that hands out its bytes in the chunks given, then the end."""

    def __init__(self, chunks: list[bytes]) -> None:
        self.chunks = chunks
        self.closed = False

    def recv(self, timeout: float | None = None) -> bytes:
        return self.chunks.pop(0) if self.chunks else b""

    def send(self, data: bytes) -> None:
        raise AssertionError("nothing is sent upstream here")

    def close(self) -> None:
        self.closed = True


def relayed(data: bytes, cuts: list[int]) -> bytes:
    points = sorted({0, len(data), *(c % (len(data) + 1) for c in cuts)})
    frames = AndroidProductFrames(Chunks([data[a:b] for a, b in zip(points, points[1:], strict=False)]))
    out = b""
    while chunk := frames.recv(1.0):
        out += chunk
    return out


def test_the_headless_product_is_named_as_androids_and_the_length_follows() -> None:
    answer = version_answer("HeadlessChrome/156.0.8078.114")
    out = relayed(HEAD + text_frame(answer), [])
    assert out.startswith(HEAD)
    frame = out[len(HEAD):]
    assert frame_length(frame) == len(frame)
    assert json.loads(frame[2:])["result"]["product"] == "Chrome/156.0.8078.114"


@given(padding=st.sampled_from(["", "x" * 200, "y" * 70_000]), cuts=st.lists(st.integers(0, 80_000), max_size=6))
def test_any_split_of_the_bytes_gives_the_same_frames_with_only_the_product_changed(padding: str,
                                                                                   cuts: list[int]) -> None:
    other = (text_frame(b'{"method":"Target.targetCreated","params":{"product":"HeadlessChrome/1', fin=False)
             + bytes([0x80, 0x03]) + b'"}}')  # a message in two fragments: text, then its continuation
    ping = bytes([0x89, 0x02]) + b"hi"
    answer = text_frame(version_answer("HeadlessChrome/156.0.8078.114", padding))
    expected = text_frame(version_answer("Chrome/156.0.8078.114", padding))
    assert relayed(HEAD + other + ping + answer, cuts) == HEAD + other + ping + expected, \
        "a fragment and a control frame pass as they came"


def test_a_chrome_product_and_a_cut_off_frame_pass_as_they_came() -> None:
    chrome = text_frame(version_answer("Chrome/156.0.8078.114"))
    cut = text_frame(version_answer("HeadlessChrome/156.0.8078.114"))[:-3]
    assert relayed(HEAD + chrome + cut, [len(HEAD) + 5]) == HEAD + chrome + cut
