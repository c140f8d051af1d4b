"""The agent double's frames, byte for byte, against the golden frames of protocol 1
(tests/golden/, the frames both codecs and the Java agent are tested against)."""

from __future__ import annotations

import struct
from pathlib import Path

from pytest_mobile_agent.agent import protocol as wire
from pytest_mobile_agent.virtual.kernel.streams import Kernel
from tests.support.agent_host import Host, make_core

GOLDEN = Path(__file__).resolve().parents[3] / "golden"


def raw_frame(host: Host, timeout: float = 3.0) -> bytes:
    """The next whole frame's bytes, as the agent wrote them."""
    data = b""
    while len(data) < 4 or len(data) < 4 + struct.unpack(">I", data[:4])[0]:
        chunk = host.stream.recv(timeout)
        assert chunk, "the stream ended"
        data += chunk
    return data


def test_the_hello_is_the_golden_frame_byte_for_byte() -> None:
    core, _ = make_core()
    try:
        host = Host(core, Kernel())
        host.send({"type": "auth", "token": "0123456789abcdef0123456789abcdef"})
        assert raw_frame(host) == (GOLDEN / "hello.frame").read_bytes()
    finally:
        core.stop()


def test_the_refusals_and_the_replacement_notice_are_the_golden_frames() -> None:
    core, _ = make_core()
    try:
        wrong = Host(core, Kernel())
        wrong.send({"type": "auth", "token": "f" * 32})
        assert raw_frame(wrong) == (GOLDEN / "refused.frame").read_bytes()
        root = Host(core, Kernel(), peer_uid=10123)
        assert raw_frame(root) == (GOLDEN / "refused-peer.frame").read_bytes()
        first = Host(core, Kernel())
        first.handshake()
        Host(core, Kernel()).handshake()
        assert raw_frame(first) == (GOLDEN / "closing.frame").read_bytes()
    finally:
        core.stop()


def test_a_snapshot_has_the_golden_window_and_node_keys_with_the_skipped_children() -> None:
    """The golden `response-snapshot` frame (docs/protocol.md, `skipped_children`)."""
    golden = wire.decode((GOLDEN / "response-snapshot.frame").read_bytes())["result"]
    core, _ = make_core()
    try:
        host = Host(core, Kernel())
        host.handshake()
        snapshot = host.result("snapshot")
    finally:
        core.stop()
    assert set(snapshot) == set(golden)
    golden_window = golden["windows"][0]
    for window in snapshot["windows"]:
        assert set(window) == set(golden_window)
        assert isinstance(window["skipped_children"], int)
        assert all(set(node) == set(golden_window["nodes"][0]) for node in window["nodes"])
