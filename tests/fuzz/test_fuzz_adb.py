"""The adb client's parsers and reply readers fed arbitrary bytes: a result or an errors.py error,
never another exception, never a hang (a silent peer is a Timeout at the io deadline)."""

from __future__ import annotations

import time

from hypothesis import given
from hypothesis import strategies as st

from pytest_mobile_agent.adb import wire
from pytest_mobile_agent.adb.connection import AdbConnection
from pytest_mobile_agent.adb.device import parse_forward_list
from pytest_mobile_agent.adb.shell import ShellOutput, ShellStream
from pytest_mobile_agent.adb.sync import Pusher, SyncReader, send_spec
from pytest_mobile_agent.adb.targets import advice_for, parse_devices_l
from pytest_mobile_agent.errors import ProtocolError, Timeout
from tests.fuzz.bounds import chunked, ends_within, lighter, only_our_errors, peer_sent

IO_TIMEOUT = 0.5
REMOTE = "/data/local/tmp/fuzz"

# --- strategies ------------------------------------------------------------------------------------

hex4 = st.text(alphabet="0123456789abcdefABCDEF", min_size=4, max_size=4).map(str.encode)
statuses = st.sampled_from([b"OKAY", b"FAIL", b"OKAX", b"fail", b""])
host_replies = st.one_of(
    st.binary(max_size=120),
    st.builds(lambda s, n, body: s + n + body, statuses, hex4, st.binary(max_size=120)),
    st.builds(lambda s, body: s + wire.encode_length_prefixed(body), statuses, st.binary(max_size=200)),
)
shell_packets = st.lists(
    st.tuples(st.integers(0, 8), st.binary(max_size=40)), max_size=8
).map(lambda packets: b"".join(bytes([k]) + len(d).to_bytes(4, "little") + d for k, d in packets))
shell_replies = st.one_of(st.binary(max_size=200), shell_packets,
                          st.builds(bytes.__add__, shell_packets, st.binary(max_size=12)))
sync_idents = st.sampled_from(
    [b"OKAY", b"FAIL", b"DATA", b"DONE", b"QUIT", b"SEND", b"LIST", b"STAT", b"STA2", b"DENT", b"XXXX"]
)
sync_messages = st.lists(
    st.tuples(sync_idents, st.one_of(st.integers(0, 70), st.integers(0, 2**32 - 1)), st.binary(max_size=70)),
    max_size=6,
).map(lambda ms: b"".join(i + w.to_bytes(4, "little") + d for i, w, d in ms))
device_lines = st.lists(
    st.one_of(
        st.text(max_size=60),
        st.builds(lambda s, state, attrs: f"{s}\t{state} {attrs}",
                  st.text(st.characters(blacklist_categories=["Cs"]), max_size=20),
                  st.sampled_from(["device", "offline", "unauthorized", "no permissions (udev)", "recovery", ""]),
                  st.text(max_size=40)),
    ),
    max_size=8,
).map("\n".join)


def conn_on(sock) -> AdbConnection:
    return AdbConnection(sock, "fuzz-peer", IO_TIMEOUT)


# --- the smart-socket framing ------------------------------------------------------------------------


@given(st.binary(min_size=0, max_size=6))
def test_a_length_prefix_is_a_length_or_a_protocol_error(four):
    with ends_within():
        try:
            length = wire.parse_hex_length(four)
        except ProtocolError:
            return
    assert 0 <= length <= 0xFFFF and length == int(four, 16)


@given(host_replies)
def test_any_status_and_length_prefixed_reply_is_a_result_or_our_error(reply):
    with peer_sent(reply) as sock, only_our_errors():
        conn = conn_on(sock)
        conn.read_status("host:devices-l")
        body = conn.read_length_prefixed("host:devices-l")
        assert isinstance(body, bytes)
        parse_devices_l(body.decode("utf-8", "replace"))


@lighter(12)
@given(st.binary(max_size=7))
def test_a_peer_that_stops_mid_reply_is_a_timeout_at_the_io_deadline(reply):
    """The peer sends a prefix of a status or length and then nothing, without closing."""
    with peer_sent(reply, close=False) as sock:
        conn = AdbConnection(sock, "silent-peer", 0.05)
        started = time.monotonic()
        try:
            conn.read_status("host:version")
            conn.read_length_prefixed("host:version")
        except Timeout:
            assert time.monotonic() - started < 1.0
        except ProtocolError:
            pass  # what did arrive was already wrong


# --- devices-l and forward lists ----------------------------------------------------------------------


@given(device_lines)
def test_any_devices_listing_parses_every_line_and_never_raises(text):
    with ends_within():
        entries = parse_devices_l(text)
        for entry in entries:
            assert entry.serial and entry.state
            advice_for(entry)
    nonblank = [line for line in text.split("\n") if line.strip(" \t\r\n\v\f")]
    assert len(entries) == len(nonblank)


@given(st.text(max_size=200))
def test_any_forward_listing_is_rules_or_our_error(text):
    with only_our_errors():
        for rule in parse_forward_list(text):
            assert rule.serial and rule.local and rule.remote


# --- shell v2 -----------------------------------------------------------------------------------------


@given(shell_replies, st.lists(st.integers(0, 400), max_size=6))
def test_the_shell_packet_decoder_takes_any_chunking_and_only_raises_protocol_errors(data, cuts):
    decoder = wire.ShellPacketDecoder()
    whole: list[tuple[int, bytes]] = []
    with only_our_errors() as caught:
        for chunk in chunked(data, cuts):
            whole.extend(decoder.feed(chunk))
    assert all(isinstance(e, ProtocolError) for e in caught)
    if not caught:  # the same packets as one feed would give
        assert wire.ShellPacketDecoder().feed(data) == whole


@given(shell_replies)
def test_any_shell_stream_is_an_output_or_our_error(reply):
    with peer_sent(reply) as sock, only_our_errors():
        out = ShellStream(conn_on(sock), "true").collect()
        assert isinstance(out, ShellOutput) and isinstance(out.exit_code, int)


# --- sync ---------------------------------------------------------------------------------------------


@given(sync_messages, st.lists(st.integers(0, 400), max_size=6))
def test_the_sync_decoder_takes_any_chunking_and_only_raises_protocol_errors(data, cuts):
    decoder = wire.SyncDecoder()
    with only_our_errors() as caught:
        for chunk in chunked(data, cuts):
            for ident, word, payload in decoder.feed(chunk):
                assert len(ident) == 4 and 0 <= word < 2**32 and len(payload) <= 64 * 1024 + 1056
    assert all(isinstance(e, ProtocolError) for e in caught)


@given(st.one_of(sync_messages, st.binary(max_size=80)))
def test_any_sync_reply_to_a_push_is_a_success_or_our_error(reply):
    with peer_sent(reply) as sock, only_our_errors():
        Pusher(conn_on(sock), REMOTE, send_spec(REMOTE, 0o644))._read_status()


@given(st.one_of(sync_messages, st.binary(max_size=80)), st.binary(max_size=3000))
def test_a_whole_push_against_any_reply_is_a_success_or_our_error(reply, data):
    with peer_sent(reply) as sock, only_our_errors():
        Pusher(conn_on(sock), REMOTE, send_spec(REMOTE, 0o644)).push_bytes(data, 0)


@given(st.one_of(sync_messages, st.binary(max_size=120)), st.sampled_from(["recv", "stat", "listdir"]))
def test_any_reply_to_a_pull_stat_or_list_is_a_result_or_our_error(reply, verb):
    import io

    with peer_sent(reply) as sock, only_our_errors():
        reader = SyncReader(conn_on(sock))
        if verb == "recv":
            reader.recv(REMOTE, io.BytesIO())
        elif verb == "stat":
            reader.stat(REMOTE)
        else:
            reader.listdir(REMOTE)
