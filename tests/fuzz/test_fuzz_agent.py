"""The agent protocol's decoders and the launch-output parsers fed arbitrary input: a message, a
value or an errors.py error (ProtocolError for bad bytes), never another exception, never a hang.

Covers agent/protocol.py (FrameDecoder, decode_payload, validate, the HostSession state machine),
agent/connection.py (the handshake over a stream whose peer sends anything), agent/launch.py (the
ready, conflict and error lines, `ps -A -o PID,ARGS`, socket names), the quiet-device policy's own
process-list parser, and the session's readers of agent results (snapshot, `wm density`).
"""

from __future__ import annotations

import json
import math
import struct

import msgspec
from hypothesis import example, given
from hypothesis import strategies as st

from pytest_mobile_agent.agent import launch
from pytest_mobile_agent.agent import protocol as wire
from pytest_mobile_agent.agent.connection import Connection
from pytest_mobile_agent.agent.protocol import Disconnection, Established, HostSession, State
from pytest_mobile_agent.errors import MobileAgentError, ProtocolError
from pytest_mobile_agent.plugin import policy
from pytest_mobile_agent.session.tree import ReadReason, decode_snapshot, parse_snapshot, scale_from_wm_density
from tests.fuzz.bounds import chunked, ends_within, lighter, only_our_errors, peer_sent

TOKEN = "0123456789abcdef0123456789abcdef"
HELLO = {"type": "hello", "agent": "mobile-agent-android", "version": "0.1.0", "build": "7fec0cb05341",
         "protocols": [1], "capabilities": ["events", "bounds"], "pid": 2973,
         "socket": "mobile-agent-0.1.0-p1-7fec0cb05341-9f3cf6e22dae"}

# --- strategies ------------------------------------------------------------------------------------

json_scalars = st.one_of(st.none(), st.booleans(), st.integers(-(2**70), 2**70),
                         st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=12))
json_values = st.recursive(json_scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)), max_leaves=12)
TYPES = [*wire.REQUIRED, "bogus", ""]
KEYS = sorted({k for keys in wire.REQUIRED.values() for k in keys} | {"result", "error", "type"})


@st.composite
def messages(draw) -> dict:
    """An object shaped like a frame: a known (or unknown) type, some of the known keys with values
    of any JSON type, sometimes the right ones."""
    kind = draw(st.sampled_from(TYPES))
    message = {"type": kind}
    for key, expected in wire.REQUIRED.get(kind, {}).items():
        if draw(st.booleans()):
            message[key] = draw(_of(expected))
        elif draw(st.booleans()):
            message[key] = draw(json_values)
    for key in draw(st.lists(st.sampled_from(KEYS), max_size=3)):
        message[key] = draw(json_values)
    if kind == "response" and draw(st.booleans()):
        message["error"] = draw(st.fixed_dictionaries(
            {}, optional={"code": st.text(max_size=8), "message": st.text(max_size=8), "retryable": json_values}))
    return message


def _of(kind: str):
    return {"integer": st.integers(-5, 2**40), "number": st.one_of(st.integers(-5, 2**40), st.floats(allow_nan=False)),
            "string": st.text(max_size=12), "boolean": st.booleans(),
            "object": st.dictionaries(st.text(max_size=6), json_values, max_size=3),
            "array": st.lists(st.one_of(st.integers(-2, 3), st.text(max_size=4)), max_size=3)}[kind]


def frame_of(payload: bytes) -> bytes:
    return struct.pack(">I", len(payload)) + payload


raw_payloads = st.one_of(
    st.binary(max_size=60),
    st.text(max_size=40).map(str.encode),
    json_values.map(lambda v: json.dumps(v).encode()),
    messages().map(lambda m: json.dumps(m).encode()),
    st.sampled_from([b"1e400", b'{"type":"ping","nonce":1e400}', b"[" * 5000, b'{"type":NaN}', b"\xff\xfe"]),
)
frame_streams = st.lists(
    st.one_of(raw_payloads.map(frame_of), st.binary(max_size=12),
              st.sampled_from([b"\x00\x00\x00\x00", b"\xff\xff\xff\xff", b"\x01\x00\x00\x01"])),
    max_size=6,
).map(b"".join)


# --- frames ----------------------------------------------------------------------------------------


@given(frame_streams, st.lists(st.integers(0, 600), max_size=8))
def test_the_frame_decoder_takes_any_bytes_in_any_chunking_and_only_raises_protocol_errors(data, cuts):
    decoder = wire.FrameDecoder()
    got: list[dict] = []
    with only_our_errors() as caught:
        for chunk in chunked(data, cuts):
            got.extend(decoder.feed(chunk))
    assert all(isinstance(e, ProtocolError) for e in caught)
    assert all(isinstance(m, dict) and isinstance(m["type"], str) for m in got)
    if caught:  # after a protocol error the decoder stays failed: the connection is closed
        with only_our_errors() as again:
            decoder.feed(b"")
        assert again


@lighter(2)
@given(raw_payloads)
def test_any_payload_is_a_message_or_a_protocol_error(payload):
    with only_our_errors() as caught:
        message = wire.decode_payload(payload)
        wire.validate(message)
        assert isinstance(message["type"], str)
    assert all(isinstance(e, ProtocolError) for e in caught)


class _NamedTwice(ValueError):
    pass


def _read_by_the_stdlib(payload: bytes, unique_keys: bool) -> object:
    """The payload as Python's json reads it, a key named twice refused when `unique_keys`: what
    `decode_payload` must give, whichever decoder it takes the bytes through."""
    def once_each(pairs: list) -> dict:
        if len({key for key, _ in pairs}) != len(pairs):
            raise _NamedTwice
        return dict(pairs)

    def no_constants(name: str) -> None:
        raise ValueError(name)

    return json.loads(payload.decode("utf-8"), parse_constant=no_constants,
                      object_pairs_hook=once_each if unique_keys else None)


def _compact(value: object) -> str:
    return msgspec.json.encode(value).decode()


@st.composite
def objects_naming_keys_twice(draw) -> bytes:
    """A compact object written as msgspec writes one, but for a key named twice (or not): the text
    the fast reading must not take at its word."""
    keys = draw(st.lists(st.sampled_from(["type", "token", "a", "\u00e9"]), min_size=1, max_size=5))
    members = [f"{_compact(key)}:{_compact(draw(json_values))}" for key in keys]
    text = "{" + ",".join(members) + "}"
    return draw(st.sampled_from([text, f'{{"type":"x","inner":{text}}}', f'{{"type":"x","list":[1,{text}]}}'])).encode()


@lighter(2)
@given(st.one_of(raw_payloads, objects_naming_keys_twice(), json_values.map(lambda v: msgspec.json.encode(v))),
       st.booleans())
@example(b'{"type":"auth","token":"a","token":"b"}', True)
@example(b'{"type":"auth","token":"a","token":"a"}', True)
@example(b'{"type":"a\nb"}', False)  # a raw control character in a string: both refuse it
@example(b'\xef\xbb\xbf{"type":"x"}', False)  # a byte-order mark
@example(b'{"type":"x"}\x0c', False)  # a form feed is not JSON's whitespace
@example(b'{"type":"x","n":1e400}', True)  # msgspec refuses it, Python's json reads inf
@example(b'{"type":"\\ud800"}', True)  # a lone surrogate: msgspec refuses it, Python's json takes it
def test_a_payload_decodes_as_pythons_json_reads_it_and_a_key_named_twice_is_refused(payload, unique_keys):
    """msgspec reads a payload first (issue 40, the micro suite's codec_decode): the value, and every
    refusal, is still the stdlib's, a duplicate key included in texts msgspec would write itself."""
    try:
        expected = _read_by_the_stdlib(payload, unique_keys)
    except (ValueError, RecursionError):  # UnicodeDecodeError and _NamedTwice are ValueErrors
        expected = ProtocolError
    with only_our_errors() as caught:
        got = wire.decode_payload(payload, unique_keys=unique_keys)
    if expected is ProtocolError or not (isinstance(expected, dict) and isinstance(expected.get("type"), str)):
        assert [type(e) for e in caught] == [ProtocolError]
    else:
        assert not caught
        assert got == expected


def _whole(message: dict) -> dict:
    """A lazily decoded message with its result decoded, as the caller who asks for it sees it."""
    result = message.get("result")
    return {**message, "result": result.as_dict()} if isinstance(result, wire.RawResult) else message


@given(frame_streams, st.lists(st.integers(0, 600), max_size=8))
def test_the_established_frame_decoder_in_any_chunking_gives_what_the_whole_decoder_gives(data, cuts):
    """Issue 40 item 1: once established, frames are read in place (a result a view of the buffer
    they arrived in, the rest of the buffer moved on): the same messages, the same failure."""
    lazy, whole = wire.FrameDecoder(unique_keys=False, lazy_results=True), wire.FrameDecoder(unique_keys=False)
    got_lazy: list[dict] = []
    got_whole: list[dict] = []
    with only_our_errors() as caught_lazy:
        for chunk in chunked(data, cuts):
            got_lazy.extend(lazy.feed(chunk))
    with only_our_errors() as caught_whole:
        got_whole.extend(whole.feed(data))
    assert [str(e) for e in caught_lazy] == [str(e) for e in caught_whole]
    if caught_whole:
        # a feed that fails gives nothing, so what came before the failure depends on the chunking (for
        # either decoder): the lazy one's messages are those the whole one gives for the frames before it
        got_whole = []
        with only_our_errors():
            for frame in _frames_before_the_failure(data):
                got_whole.extend(wire.FrameDecoder(unique_keys=False).feed(frame))
        got_whole = got_whole[:len(got_lazy)]
    assert len(got_lazy) == len(got_whole)
    for a, b in zip(got_lazy, got_whole, strict=True):
        assert _whole(a) == {k: v for k, v in b.items() if a["type"] != "response" or k in a}


def _frames_before_the_failure(data: bytes) -> list[bytes]:
    """The stream's whole frames, each on its own (a bad one is left to fail its own feed)."""
    frames, offset = [], 0
    while len(data) - offset >= 4:
        end = offset + 4 + int.from_bytes(data[offset:offset + 4], "big")
        if end > len(data) or end == offset + 4:
            break
        frames.append(data[offset:end])
        offset = end
    return frames


@lighter(2)
@given(raw_payloads)
@example(b'{"type":"response","result":null}')  # no id: refused for that, not for a null id
def test_the_established_decoder_reads_any_payload_as_the_whole_decoder_does(payload):
    """Issue 40 item 1: after the handshake a response's result stays bytes (RawResult); whatever
    the payload, the message, once its result is asked for, is the one `decode_payload` gives, and
    a payload it refuses is refused in the same words."""
    with only_our_errors() as caught_whole:
        whole = wire.decode_payload(payload, unique_keys=False)
    with only_our_errors() as caught_lazy:
        lazy = wire.decode_response_lazily(payload)
    assert all(isinstance(e, ProtocolError) for e in caught_whole + caught_lazy)
    assert [str(e) for e in caught_lazy] == [str(e) for e in caught_whole]
    if not caught_whole:
        with only_our_errors() as caught:
            wire.validate(whole)
        with only_our_errors() as caught_again:
            wire.validate(lazy)
        assert [str(e) for e in caught_again] == [str(e) for e in caught]
        if not caught:
            assert _whole(lazy) == {k: v for k, v in whole.items() if lazy["type"] != "response" or k in lazy}


@lighter(2)
@given(messages())
def test_a_message_that_validates_has_every_required_key_with_its_type(message):
    try:
        wire.validate(message)
    except ProtocolError:
        return
    kind_of = message["type"]
    for key, kind in (wire.REQUIRED.get(kind_of, {}) if isinstance(kind_of, str) else {}).items():
        assert key in message and wire._is(kind, message[key])


@given(messages())
def test_every_encodable_message_round_trips(message):
    with only_our_errors():
        assert wire.decode(wire.encode(message)) == message


# --- the host's state machine ------------------------------------------------------------------------


def _established(now: float = 0.0) -> HostSession:
    session = HostSession(token=TOKEN)
    session.start(now)
    session.receive(wire.encode(HELLO), now)
    assert session.state is State.ESTABLISHED
    session.take_events()
    session.take_outgoing()
    return session


@given(frame_streams, st.lists(st.integers(0, 600), max_size=4))
def test_the_handshake_fed_any_bytes_never_raises_and_ends_established_waiting_or_closed(data, cuts):
    session = HostSession(token=TOKEN)
    with ends_within():
        session.start(0.0)
        for chunk in chunked(data, cuts):
            session.receive(chunk, 0.1)
        session.tick(0.2)
        events = session.take_events()
    if session.state is State.CLOSED:
        assert isinstance(events[-1], Disconnection)
        assert session.failure is None or isinstance(session.failure, MobileAgentError)
    elif session.state is State.ESTABLISHED:
        assert isinstance(events[0], Established)


@lighter(3)
@given(st.lists(messages(), max_size=8), st.floats(0, 10))
def test_an_established_session_fed_any_messages_never_raises_and_keeps_its_invariants(batch, later):
    session = _established()
    pending = session.request("snapshot", {}, 1000, 0.0)
    with ends_within():
        for message in batch:
            try:
                frame = wire.encode(message)
            except ProtocolError:
                continue
            session.receive(frame, 0.5)
        session.tick(0.5 + later)
        events = session.take_events()
        session.take_outgoing()
    closes = [e for e in events if isinstance(e, Disconnection)]
    assert len(closes) <= 1 and (not closes or events[-1] is closes[0])
    if later >= wire.LIVENESS_TIMEOUT:
        assert session.state is State.CLOSED  # silent 3 s after the last frame: taken for dead
    for event in events:
        if isinstance(event, wire.Response):
            assert event.id == pending or event.id > 0
            assert (event.result is None) != (event.error is None)


@lighter(5)
@given(frame_streams)
def test_a_connection_whose_agent_sends_anything_opens_or_fails_with_our_error_by_its_deadline(data):
    with peer_sent(data) as sock, only_our_errors():
        conn = Connection.open(sock, TOKEN, timeout=0.3, name="fuzz")
        try:
            assert conn.hello.agent is not None
        finally:
            conn.close()


# --- launch lines, ps, socket names -------------------------------------------------------------------


prefixes = st.sampled_from([launch.READY, launch.CONFLICT, launch.ERROR, launch.LOG, "", "MOBILE_AGENT_READY"])
launch_lines = st.one_of(
    st.text(max_size=80),
    st.builds(str.__add__, prefixes, st.text(max_size=60)),
    st.builds(lambda p, v: p + json.dumps(v), prefixes, json_values),
    st.builds(lambda p, v: p + json.dumps(v), prefixes, st.fixed_dictionaries({}, optional={
        "pid": json_values, "socket": json_values, "version": json_values, "build": json_values,
        "protocols": json_values, "stopped": st.lists(json_values, max_size=2), "holder": json_values,
        "message": json_values, "code": json_values})),
)


@lighter(2)
@given(launch_lines)
def test_any_launch_line_is_a_launch_line_none_or_a_protocol_error(line):
    with only_our_errors() as caught:
        parsed = launch.parse_launch_line(line)
        if isinstance(parsed, launch.Ready):
            assert isinstance(parsed.pid, int) and all(isinstance(p, int) for p in parsed.protocols)
        elif isinstance(parsed, launch.ConflictLine):
            assert isinstance(parsed.message, str)
    assert all(isinstance(e, ProtocolError) for e in caught)


ps_outputs = st.lists(st.one_of(
    st.text(max_size=60),
    st.builds(lambda pid, args: f"{pid:>5} {args}", st.integers(0, 10**12), st.text(max_size=50)),
    st.builds(lambda pid, sock: f"{pid} mobile-agent {sock}", st.integers(1, 99999), st.text(max_size=60)),
    st.builds(lambda pid: f"{pid} app_process / dev.mobileagent.agent.Main serve --socket", st.integers(1, 9)),
), max_size=10).map("\n".join)


@given(ps_outputs)
@example("  PID ARGS\n² mobile-agent x\n٣ sh")  # digits to str.isdigit that int() refuses or reads
def test_any_process_list_parses_into_processes_and_agents_without_raising(text):
    with ends_within():
        entries = launch.parse_ps(text)
        agents = launch.find_agents(entries)
        for agent in agents:
            agent.name  # noqa: B018 - parsing the socket name must not raise either
            agent.describe()
        processes = policy.parse_ps(text)
        policy.read_activity(processes, {a.socket for a in agents if a.socket})
    assert all(e.pid >= 0 for e in entries) and all(p.pid >= 0 for p in processes)


@given(st.text(max_size=80))
def test_any_socket_name_parses_or_is_none(name):
    with ends_within():
        parsed = launch.SocketName.parse(name)
    if parsed is not None:
        assert launch.socket_name(parsed.version, parsed.protocol, parsed.build, parsed.suffix) == name


# --- the session's readers of agent results -----------------------------------------------------------


windows = st.one_of(json_values, st.fixed_dictionaries(
    {"id": json_values, "nodes": st.lists(json_values, max_size=2), "bounds": json_values}))
snapshot_results = st.one_of(json_values, st.fixed_dictionaries(
    {"windows": st.lists(windows, max_size=2)},
    optional={"node_count": st.one_of(json_values, st.just(math.inf)), "idle": json_values,
              "display": json_values, "seq": json_values}))


@given(snapshot_results)
def test_any_snapshot_result_is_a_snapshot_or_a_protocol_error(result):
    with only_our_errors() as caught:
        parse_snapshot(result, scale=2.625, reason=ReadReason.POLL, read_at=0.0)
    assert all(isinstance(e, ProtocolError) for e in caught)


@given(st.one_of(snapshot_results.map(lambda r: json.dumps(r).encode()), st.binary(max_size=80),
                 st.sampled_from([b'{"windows":[]}   ', b'{"windows":' + b"[" * 5000,
                                  b'{"windows":[],"seq":1e400}'])))
def test_any_snapshot_bytes_are_a_snapshot_or_a_protocol_error(data):
    """The read's typed decoder (session/tree.py decode_snapshot) fed anything."""
    with only_our_errors() as caught:
        decode_snapshot(data, scale=2.625, reason=ReadReason.POLL, read_at=0.0)
    assert all(isinstance(e, ProtocolError) and "malformed snapshot" in str(e) for e in caught)


@given(st.one_of(st.text(max_size=80), st.builds(lambda k, v: f"{k}: {v}", st.sampled_from(
    ["Physical density", "Override density", "physical density", "x"]), st.text(max_size=8))))
@example("Physical density: ²")
@example("Physical density: 420\nOverride density: 1e400")
def test_any_wm_density_output_is_a_scale_or_a_protocol_error(output):
    with only_our_errors() as caught:
        assert scale_from_wm_density(output) > 0
    assert all(isinstance(e, ProtocolError) for e in caught)


@given(st.integers(-(2**40), 2**40), st.text(max_size=20), st.dictionaries(st.sampled_from(
    ["window", "windows", "nodes", "kinds", "x"]), json_values, max_size=4))
def test_any_agent_event_names_integer_windows(seq, name, data):
    with ends_within():
        event = wire.ProtocolEvent(seq, name, data, 1.0)
        window, windows = event.window, event.windows
    assert event.seq == seq and event.received_at == 1.0
    assert window is None or isinstance(window, int)
    assert all(isinstance(w, int) for w in windows)
