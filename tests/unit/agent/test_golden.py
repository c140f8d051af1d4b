"""The golden frames: each decodes to its message and re-encodes to a frame that decodes equal."""

from __future__ import annotations

import importlib.util
import struct
from pathlib import Path

import pytest

from pytest_mobile_agent.agent.protocol import REQUIRED, decode, encode, validate

GOLDEN = Path(__file__).resolve().parents[2] / "golden"
_spec = importlib.util.spec_from_file_location("make_golden", GOLDEN / "make_golden.py")
assert _spec and _spec.loader
make_golden = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(make_golden)

METHODS = ("snapshot", "bounds", "tap", "swipe", "key", "text", "screenshot", "resync", "shutdown", "toasts")
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
