"""The golden frames: each decodes to its message and re-encodes to a frame that decodes equal."""

from __future__ import annotations

import importlib.util
import struct
from pathlib import Path

import pytest

from pytest_mobile_agent.agent.protocol import REQUIRED, FrameDecoder, RawResult, Response, decode, encode, validate

GOLDEN = Path(__file__).resolve().parents[2] / "golden"
_spec = importlib.util.spec_from_file_location("make_golden", GOLDEN / "make_golden.py")
assert _spec and _spec.loader
make_golden = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(make_golden)

METHODS = ("snapshot", "bounds", "tap", "swipe", "gesture", "key", "text", "screenshot", "resync", "shutdown",
           "toasts", "ime_enter")
FRAMES = sorted(GOLDEN.glob("*.frame"))


def test_there_is_a_frame_for_every_message_kind_every_method_and_both_responses() -> None:
    names = {path.stem for path in FRAMES}
    kinds = {decode(path.read_bytes())["type"] for path in FRAMES}
    assert kinds == set(REQUIRED)
    assert {f"request-{method}" for method in METHODS} <= names
    assert {"response-result", "response-error"} <= names
    assert names == set(make_golden.MESSAGES)


@pytest.mark.parametrize("path", FRAMES, ids=lambda p: p.stem)
def test_a_golden_frame_decodes_to_its_message_and_reencodes_to_an_equal_frame(path: Path) -> None:
    data = path.read_bytes()
    (length,) = struct.unpack(">I", data[:4])
    assert length == len(data) - 4
    message = decode(data)
    validate(message)
    assert message == make_golden.MESSAGES[path.stem]
    assert decode(encode(message)) == message


def test_the_snapshot_frame_after_the_handshake_decodes_typed_as_its_dict_parses() -> None:
    """Issue 40 item 1: once established, a response's result stays the frame's bytes and the tree
    decodes them straight into nodes; the golden snapshot gives the snapshot its dict gives."""
    from pytest_mobile_agent.session.backends import ReadReason
    from pytest_mobile_agent.session.tree import decode_snapshot, parse_snapshot

    frame = (GOLDEN / "response-snapshot.frame").read_bytes()
    decoder = FrameDecoder(unique_keys=False, lazy_results=True)
    (message,) = decoder.feed(frame)
    validate(message)
    response = Response(message["id"], message["result"], message.get("error"))
    raw = response.result_bytes()
    assert isinstance(message["result"], RawResult) and raw is not None and raw in frame  # the bytes, undecoded
    expected = make_golden.MESSAGES["response-snapshot"]["result"]
    typed = decode_snapshot(raw, scale=2.625, reason=ReadReason.POLL, read_at=1.0)
    assert typed == parse_snapshot(expected, scale=2.625, reason=ReadReason.POLL, read_at=1.0)
    assert [n.text for n in typed.windows[0].nodes] == [None, "Continue"] and typed.seq == 41
    assert response.result == expected  # asked for as a dict, it is the dict
