"""The wire formats shared with the virtual device: length prefix, status, shell v2, sync."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_mobile_agent.adb import wire
from pytest_mobile_agent.errors import ProtocolError


def test_requests_carry_a_lowercase_hex_length():
    assert wire.encode_request("host:version") == b"000chost:version"
    assert wire.encode_request(b"x" * 255) == b"00ff" + b"x" * 255
    assert wire.encode_okay() == b"OKAY"
    assert wire.encode_fail("device 'x' not found") == b"FAIL0014device 'x' not found"
    assert wire.encode_length_prefixed(b"0029") == b"00040029"


def test_a_request_over_the_length_limit_is_refused():
    with pytest.raises(ProtocolError, match="limit"):
        wire.encode_request(b"x" * 0x10000)


@pytest.mark.parametrize("junk", [b"zzzz", b"12", b"-001", b" 0a1", b"0x10"])
def test_a_junk_length_is_a_protocol_error(junk):
    with pytest.raises(ProtocolError):
        wire.parse_hex_length(junk)


def test_hex_lengths_parse_either_case():
    assert wire.parse_hex_length(b"00Ff") == 255
    assert wire.parse_hex_length(b"0000") == 0


def test_shell_packets_are_an_id_a_little_endian_length_and_the_data():
    assert wire.encode_shell_packet(wire.SHELL_STDOUT, b"hi") == b"\x01\x02\x00\x00\x00hi"
    assert wire.encode_shell_packet(wire.SHELL_EXIT, b"\x07") == b"\x03\x01\x00\x00\x00\x07"
    with pytest.raises(ProtocolError):
        wire.encode_shell_packet(9, b"")


def test_an_unknown_or_oversized_shell_packet_is_a_protocol_error():
    with pytest.raises(ProtocolError, match="unknown shell packet id 6"):
        wire.ShellPacketDecoder().feed(b"\x06\x00\x00\x00\x00")
    with pytest.raises(ProtocolError, match="exceeds"):
        wire.ShellPacketDecoder().feed(b"\x01\xff\xff\xff\x7f")


_packets = st.lists(st.tuples(st.integers(0, 5), st.binary(max_size=300)), max_size=12)


@given(_packets, st.data())
def test_the_shell_decoder_gives_the_same_packets_for_any_chunking(packets, data):
    stream = b"".join(wire.encode_shell_packet(kind, payload) for kind, payload in packets)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(stream)), max_size=20)))
    decoder = wire.ShellPacketDecoder()
    decoded = []
    start = 0
    for cut in [*cuts, len(stream)]:
        decoded.extend(decoder.feed(stream[start:cut]))
        start = cut
    assert decoded == packets
    assert decoder.pending == 0


def test_sync_messages_carry_a_length_or_a_value():
    assert wire.encode_sync(b"DATA", b"abc") == b"DATA\x03\x00\x00\x00abc"
    assert wire.encode_sync(b"DONE", 0x01020304) == b"DONE\x04\x03\x02\x01"
    assert wire.encode_sync(b"OKAY", 0) == b"OKAY\x00\x00\x00\x00"
    with pytest.raises(ProtocolError):
        wire.encode_sync(b"TOOLONG", 0)


def test_the_sync_decoder_reads_requests_and_replies():
    stream = (
        wire.encode_sync(b"SEND", b"/data/local/tmp/x,33188")
        + wire.encode_sync(b"DATA", b"payload")
        + wire.encode_sync(b"DONE", 1700000000)
        + wire.encode_sync(b"QUIT", 0)
        + wire.encode_sync(b"STAT", b"/sdcard")
        + wire.encode_sync(b"FAIL", b"no")
        + wire.encode_sync(b"OKAY", 0)
    )
    assert wire.SyncDecoder().feed(stream) == [
        (b"SEND", 23, b"/data/local/tmp/x,33188"),
        (b"DATA", 7, b"payload"),
        (b"DONE", 1700000000, b""),
        (b"QUIT", 0, b""),
        (b"STAT", 7, b"/sdcard"),
        (b"FAIL", 2, b"no"),
        (b"OKAY", 0, b""),
    ]


def test_an_unknown_or_oversized_sync_message_is_a_protocol_error():
    with pytest.raises(ProtocolError, match="unknown sync id"):
        wire.SyncDecoder().feed(b"JUNK\x00\x00\x00\x00")
    with pytest.raises(ProtocolError, match="exceeds"):
        wire.SyncDecoder().feed(b"DATA\x01\x00\x01\x00")  # 64 KiB + 1
    with pytest.raises(ProtocolError, match="exceeds"):
        wire.SyncDecoder().feed(b"SEND\x00\x10\x00\x00")


@given(st.lists(st.one_of(
    st.tuples(st.sampled_from([b"DATA", b"SEND", b"FAIL", b"RECV", b"STAT", b"LIST"]), st.binary(max_size=200)),
    st.tuples(st.sampled_from([b"DONE", b"OKAY", b"QUIT"]), st.integers(0, 2**32 - 1)),
), max_size=10), st.data())
def test_the_sync_decoder_gives_the_same_messages_for_any_chunking(messages, data):
    stream = b"".join(wire.encode_sync(ident, value) for ident, value in messages)
    expected = [(i, len(v), v) if isinstance(v, bytes) else (i, v, b"") for i, v in messages]
    cuts = sorted(data.draw(st.lists(st.integers(0, len(stream)), max_size=20)))
    decoder = wire.SyncDecoder()
    decoded = []
    start = 0
    for cut in [*cuts, len(stream)]:
        decoded.extend(decoder.feed(stream[start:cut]))
        start = cut
    assert decoded == expected
