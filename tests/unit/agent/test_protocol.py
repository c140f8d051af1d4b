"""The frame codec and the host's protocol state machine (no I/O: bytes in, an injected clock)."""

from __future__ import annotations

import struct

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_mobile_agent.agent.protocol import (
    MAX_FRAME,
    Disconnection,
    Established,
    FrameDecoder,
    Hint,
    HostSession,
    OutOfSync,
    ProtocolEvent,
    Response,
    Resynced,
    State,
    decode,
    encode,
    encode_plain,
    validate,
)
from pytest_mobile_agent.errors import ProtocolError, Unauthorized, VersionMismatch
from tests.support.scripted_agent import TOKEN, AgentIdentity

# --- the codec -----------------------------------------------------------------------------------


def test_a_frame_is_a_big_endian_length_then_utf8_json() -> None:
    frame = encode({"type": "ping", "nonce": 5})
    (length,) = struct.unpack(">I", frame[:4])
    assert length == len(frame) - 4
    assert frame[4:] == b'{"type":"ping","nonce":5}'
    assert decode(frame) == {"type": "ping", "nonce": 5}


def test_non_ascii_text_travels_as_utf8() -> None:
    frame = encode({"type": "request", "id": 1, "method": "text", "deadline_ms": 5000,
                    "params": {"text": "héllo 👋"}})
    assert "héllo 👋".encode() in frame
    assert decode(frame)["params"]["text"] == "héllo 👋"


def test_the_decoder_takes_any_chunking() -> None:
    frames = encode({"type": "ping", "nonce": 1}) + encode({"type": "pong", "nonce": 2})
    decoder = FrameDecoder()
    got = []
    for byte in frames:
        got.extend(decoder.feed(bytes([byte])))
    assert got == [{"type": "ping", "nonce": 1}, {"type": "pong", "nonce": 2}]
    assert decoder.pending == 0


@pytest.mark.parametrize(
    "frame, words",
    [
        (struct.pack(">I", 0), "length 0"),
        (struct.pack(">I", MAX_FRAME + 1), "exceeds the limit"),
        (struct.pack(">I", 2) + b"\xff\xfe", "not UTF-8"),
        (struct.pack(">I", 3) + b"{x}", "not JSON"),
        (struct.pack(">I", 2) + b"[]", "not an object"),
        (struct.pack(">I", 2) + b"{}", "without a string `type`"),
        (struct.pack(">I", 12) + b'{"type":NaN}', "not JSON"),
    ],
)
def test_a_bad_frame_is_a_protocol_error(frame: bytes, words: str) -> None:
    with pytest.raises(ProtocolError, match=words):
        FrameDecoder().feed(frame)


def test_a_length_over_the_limit_is_refused_from_its_header_alone() -> None:
    decoder = FrameDecoder()
    with pytest.raises(ProtocolError):
        decoder.feed(struct.pack(">I", 0xFFFFFFFF))  # no 4 GiB wait
    with pytest.raises(ProtocolError):
        decoder.feed(b"more")  # and it stays failed


def test_a_frame_of_exactly_the_limit_is_accepted() -> None:
    filler = "x" * (MAX_FRAME - len('{"type":"event","pad":""}'))
    frame = encode({"type": "event", "pad": filler})
    assert len(frame) == MAX_FRAME + 4
    assert FrameDecoder().feed(frame)[0]["type"] == "event"
    with pytest.raises(ProtocolError):
        encode({"type": "event", "pad": filler + "x"})


def test_missing_required_keys_and_wrong_types_are_protocol_errors_and_unknown_keys_pass() -> None:
    validate({"type": "ping", "nonce": 1, "future": True})
    validate({"type": "some_future_kind"})
    with pytest.raises(ProtocolError, match="without `nonce`"):
        validate({"type": "ping"})
    with pytest.raises(ProtocolError, match="not a JSON integer"):
        validate({"type": "ping", "nonce": True})
    with pytest.raises(ProtocolError, match="exactly one"):
        validate({"type": "response", "id": 1})
    with pytest.raises(ProtocolError, match="retryable"):
        validate({"type": "response", "id": 1, "error": {"code": "busy", "message": "busy"}})


@given(st.binary(max_size=300), st.lists(st.integers(min_value=1, max_value=40), max_size=20))
def test_the_decoder_on_arbitrary_bytes_and_chunkings_gives_messages_or_a_clean_error(
    data: bytes, cuts: list[int]
) -> None:
    decoder = FrameDecoder()
    offset = 0
    chunks = []
    for cut in cuts:
        chunks.append(data[offset:offset + cut])
        offset += cut
    chunks.append(data[offset:])
    try:
        for chunk in chunks:
            for message in decoder.feed(chunk):
                assert isinstance(message, dict) and isinstance(message["type"], str)
    except ProtocolError:
        pass
    assert decoder.pending <= len(data)


_json = st.recursive(
    st.none() | st.booleans() | st.integers(-2**53, 2**53) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)


@given(st.dictionaries(st.text(max_size=8), _json, max_size=6), st.text(min_size=1, max_size=12),
       st.integers(min_value=1, max_value=16))
def test_any_message_survives_encode_and_any_chunked_decode(body: dict, kind: str, step: int) -> None:
    message = {**body, "type": kind}
    frame = encode(message)
    decoder = FrameDecoder()
    got = []
    for start in range(0, len(frame), step):
        got.extend(decoder.feed(frame[start:start + step]))
    assert got == [message]


# --- the host session ----------------------------------------------------------------------------


def _frames(session: HostSession) -> list[dict]:
    decoder = FrameDecoder()
    return decoder.feed(session.take_outgoing())


def _established(now: float = 0.0, identity: AgentIdentity | None = None) -> HostSession:
    session = HostSession(token=TOKEN)
    session.start(now)
    session.take_outgoing()
    session.receive(encode((identity or AgentIdentity()).hello()), now)
    session.take_outgoing()
    session.take_events()
    return session


def _event(seq: int) -> bytes:
    return encode({"type": "event", "seq": seq, "name": "window_changed", "data": {"window": 12}})


def test_the_handshake_sends_auth_then_welcome_with_a_common_protocol() -> None:
    session = HostSession(token=TOKEN)
    session.start(0.0)
    assert _frames(session) == [{"type": "auth", "token": TOKEN}]
    session.receive(encode(AgentIdentity(protocols=(1, 2)).hello()), 0.1)
    assert _frames(session) == [{"type": "welcome", "protocol": 1, "host": "pytest-mobile-agent 0.1.0"}]
    (event,) = session.take_events()
    assert isinstance(event, Established) and event.protocol == 1
    assert event.hello.build == AgentIdentity().build and event.hello.pid == 2973
    assert session.state is State.ESTABLISHED


def test_an_agent_speaking_only_an_older_protocol_is_refused_in_the_welcome() -> None:
    session = HostSession(token=TOKEN)
    session.start(0.0)
    session.take_outgoing()
    session.receive(encode(AgentIdentity(protocols=(0,)).hello()), 0.1)
    assert _frames(session) == [{"type": "refuse", "code": "version_mismatch", "message": "host speaks protocols [1]"}]
    assert isinstance(session.failure, VersionMismatch)
    (event,) = session.take_events()
    assert isinstance(event, Disconnection) and event.reconnect_hint == Hint.RELAUNCH.value


def test_a_refused_token_is_unauthorized() -> None:
    session = HostSession(token=TOKEN)
    session.start(0.0)
    session.receive(encode({"type": "refused", "code": "unauthorized", "message": "unauthorized"}), 0.1)
    assert isinstance(session.failure, Unauthorized)
    assert TOKEN not in str(session.failure)
    assert session.state is State.CLOSED


def test_any_frame_but_hello_or_refused_during_the_handshake_is_a_protocol_error() -> None:
    session = HostSession(token=TOKEN)
    session.start(0.0)
    session.receive(_event(1), 0.1)
    assert isinstance(session.failure, ProtocolError)
    assert isinstance(session.take_events()[-1], Disconnection)


def test_the_host_pings_after_one_second_of_its_own_silence() -> None:
    session = _established(0.0)
    session.tick(0.99)
    assert _frames(session) == []
    assert session.next_timer() == pytest.approx(1.0)
    session.tick(1.0)
    assert _frames(session) == [{"type": "ping", "nonce": 1}]
    session.receive(encode({"type": "pong", "nonce": 1}), 1.01)
    session.tick(1.5)
    assert _frames(session) == []  # the ping counts as sending


def test_pings_are_answered_with_their_nonce() -> None:
    session = _established(0.0)
    session.receive(encode({"type": "ping", "nonce": 5}), 0.2)
    assert _frames(session) == [{"type": "pong", "nonce": 5}]


def test_a_silent_agent_is_dead_after_three_seconds() -> None:
    session = _established(0.0)
    session.tick(2.99)
    assert session.state is State.ESTABLISHED
    session.receive(encode({"type": "pong", "nonce": 1}), 2.0)  # a sign of life resets the bound
    session.tick(4.99)
    assert session.state is State.ESTABLISHED
    session.tick(5.0)
    assert session.state is State.CLOSED
    (gone,) = [e for e in session.take_events() if isinstance(e, Disconnection)]
    assert "silent for 3.0 s" in gone.reason and gone.reconnect_hint


def test_events_in_sequence_pass_and_a_gap_is_out_of_sync_with_a_resync_sent() -> None:
    session = _established(0.0)
    session.receive(_event(1) + _event(2) + _event(4), 0.1)
    events = session.take_events()
    assert [type(e) for e in events] == [ProtocolEvent, ProtocolEvent, OutOfSync, ProtocolEvent]
    assert events[2] == OutOfSync(expected=3, got=4)
    assert events[0].received_at == 0.1
    (resync,) = _frames(session)
    assert resync["method"] == "resync" and resync["params"] == {}
    session.receive(encode({"type": "response", "id": resync["id"], "result": {"seq": 9}}), 0.2)
    assert session.take_events() == [Resynced(9)]
    session.receive(_event(10), 0.3)
    assert [type(e) for e in session.take_events()] == [ProtocolEvent]


def test_a_resync_failed_with_a_retryable_error_is_sent_again_after_a_backoff() -> None:
    session = _established(0.0)
    session.receive(_event(3), 0.1)
    (first,) = _frames(session)
    session.receive(encode({"type": "response", "id": first["id"],
                            "error": {"code": "busy", "message": "reading", "retryable": True}}), 0.2)
    assert [e for e in session.take_events() if isinstance(e, Response)] == []  # internal, not a caller's
    session.tick(0.2 + 0.04)
    assert _frames(session) == []
    assert session.next_timer() == pytest.approx(0.25)
    session.tick(0.25)
    (second,) = _frames(session)
    assert second["method"] == "resync" and second["id"] != first["id"]
    session.receive(encode({"type": "response", "id": second["id"],
                            "error": {"code": "busy", "message": "reading", "retryable": True}}), 0.3)
    session.tick(0.3 + 0.05)
    assert _frames(session) == []  # the backoff doubled
    session.tick(0.4)
    (third,) = _frames(session)
    session.receive(encode({"type": "response", "id": third["id"], "result": {"seq": 7}}), 0.45)
    assert Resynced(7) in session.take_events()
    assert not session.resync_pending


def test_a_resync_reported_failed_is_sent_again_on_the_next_read() -> None:
    session = _established(0.0)
    session.receive(_event(2), 0.1)
    (first,) = _frames(session)
    session.receive(encode({"type": "response", "id": first["id"],
                            "error": {"code": "internal", "message": "broken", "retryable": False}}), 0.2)
    session.tick(5.0 - 3.0)
    assert [f for f in _frames(session) if f["type"] == "request"] == []
    session.request("tap", {"x": 1, "y": 2}, 5000, 2.1)
    assert [f["method"] for f in _frames(session)] == ["tap"]
    read = session.request("snapshot", {}, 10000, 2.2)
    frames = _frames(session)
    assert [f["method"] for f in frames] == ["resync", "snapshot"]
    assert frames[1]["id"] == read


def test_after_a_resync_reported_failed_later_events_start_no_resync_until_the_next_read() -> None:
    """Issue 19 item 4: 200 events after a non-retryable resync failure made 201 resyncs."""
    session = _established(0.0)
    session.receive(_event(2), 0.1)
    (first,) = _frames(session)
    session.receive(encode({"type": "response", "id": first["id"],
                            "error": {"code": "internal", "message": "broken", "retryable": False}}), 0.2)
    session.take_events()
    session.receive(b"".join(_event(seq) for seq in range(10, 210)), 0.3)  # the agent's seq runs on
    events = session.take_events()
    assert [e for e in events if isinstance(e, OutOfSync)] == []  # the gap is already known
    assert len([e for e in events if isinstance(e, ProtocolEvent)]) == 200  # every event still passes
    assert [f for f in _frames(session) if f["type"] == "request"] == []
    session.request("snapshot", {}, 10000, 0.4)
    resync, read = _frames(session)
    assert (resync["method"], read["method"]) == ("resync", "snapshot")
    session.receive(encode({"type": "response", "id": resync["id"], "result": {"seq": 300}}), 0.5)
    assert Resynced(300) in session.take_events()
    session.receive(_event(301) + _event(303), 0.6)  # in sync again: a new gap is a gap
    assert OutOfSync(expected=302, got=303) in session.take_events()


def test_a_resync_without_an_answer_by_its_deadline_is_sent_again() -> None:
    session = _established(0.0)
    session.receive(_event(2), 0.0)
    (first,) = _frames(session)
    for t in (1.0, 2.0, 3.0, 4.0):
        session.receive(encode({"type": "pong", "nonce": 0}), t)  # alive, yet the resync is not answered
        session.tick(t)
    session.receive(encode({"type": "pong", "nonce": 0}), 5.0)
    session.tick(5.0)
    session.tick(5.0 + 0.05)
    frames = [f for f in _frames(session) if f["type"] == "request"]
    assert [f["method"] for f in frames] == ["resync"] and frames[0]["id"] != first["id"]
    # the late answer to the first one is dropped, not handed to a caller
    session.receive(encode({"type": "response", "id": first["id"], "result": {"seq": 3}}), 5.1)
    assert [e for e in session.take_events() if isinstance(e, Response)] == []


def test_responses_reach_the_caller_by_id() -> None:
    session = _established(0.0)
    first = session.request("tap", {"x": 1, "y": 2}, 5000, 0.1)
    second = session.request("key", {"code": 4}, 5000, 0.1)
    frames = _frames(session)
    assert [(f["id"], f["deadline_ms"]) for f in frames] == [(first, 5000), (second, 5000)]
    session.receive(encode({"type": "response", "id": second, "result": {"accepted": True}}), 0.2)
    assert session.take_events() == [Response(second, {"accepted": True}, None)]


def test_a_closing_frame_is_a_disconnection_with_its_reason() -> None:
    session = _established(0.0)
    session.receive(encode({"type": "closing", "reason": "replaced"}), 0.1)
    (event,) = session.take_events()
    assert isinstance(event, Disconnection)
    assert "replaced" in event.reason and event.reconnect_hint == Hint.REPLACED.value


def test_garbage_after_the_handshake_closes_with_a_protocol_error() -> None:
    session = _established(0.0)
    session.receive(b"\x00\x00\x00\x02[]", 0.1)
    assert isinstance(session.failure, ProtocolError)
    assert session.state is State.CLOSED


def test_frames_of_unknown_types_after_the_handshake_are_ignored() -> None:
    session = _established(0.0)
    session.receive(encode({"type": "from_the_future", "x": 1}), 0.1)
    assert session.state is State.ESTABLISHED and session.take_events() == []


@given(st.binary(max_size=200), st.integers(min_value=1, max_value=32))
def test_the_host_session_fed_arbitrary_bytes_either_goes_on_or_closes_cleanly(data: bytes, step: int) -> None:
    session = _established(0.0)
    for start in range(0, len(data), step):
        session.receive(data[start:start + step], 0.1)
    session.tick(0.2)
    if session.state is State.CLOSED:  # garbage, or by chance a valid closing frame
        assert session.failure is None or isinstance(session.failure, ProtocolError)
        assert isinstance(session.take_events()[-1], Disconnection)
    session.take_outgoing()


def test_an_agent_silent_through_the_handshake_is_a_timeout() -> None:
    session = HostSession(token=TOKEN)
    session.start(0.0)
    session.tick(3.0)
    assert session.state is State.CLOSED
    assert session.failure is not None and session.failure.is_timeout()
    assert "handshake" in str(session.failure)


def test_a_disconnection_given_a_hint_keeps_its_text() -> None:
    gone = Disconnection("the agent closed the connection (shutdown)", Hint.RELAUNCH)
    assert type(gone.reconnect_hint) is str and f"{gone.reconnect_hint}" == Hint.RELAUNCH.value
    assert gone == Disconnection("the agent closed the connection (shutdown)", Hint.RELAUNCH.value)


def test_an_event_names_its_windows_by_their_integers_only() -> None:
    one = ProtocolEvent(1, "window_changed", {"window": 12, "nodes": [57]}, 0.5)
    many = ProtocolEvent(2, "windows_changed", {"windows": [12, "31", 31, None]}, 0.5)
    assert (one.window, one.windows) == (12, ())
    assert (many.window, many.windows) == (None, (12, 31))
    assert ProtocolEvent(3, "window_changed", {"window": "12"}, 0.5).window is None


def test_once_established_a_result_is_kept_as_its_bytes_until_asked_for() -> None:
    """Issue 40 item 1: after the handshake a response's result is not decoded into dicts by the
    reader; the caller takes the exact bytes (a typed decoder) or the dict, as it chooses."""
    session = _established(0.0)
    request = session.request("snapshot", {}, 5000, 0.1)
    payload = b'{"type":"response","id":%d,"result":{"windows":[],"seq":7 ,"x":[1,{"y":null}]}}' % request
    session.receive(struct.pack(">I", len(payload)) + payload, 0.2)
    (response,) = session.take_events()
    assert isinstance(response, Response)
    assert bytes(response.result_bytes() or b"") == b'{"windows":[],"seq":7 ,"x":[1,{"y":null}]}'
    assert response.result == {"windows": [], "seq": 7, "x": [1, {"y": None}]}


@pytest.mark.parametrize("payload, words", [
    (b'{"type":"response","id":1,"result":[1]}', "result` is not a JSON object"),
    (b'{"type":"response","id":1,"result":{"a":NaN}}', "not JSON"),
    (b'{"type":"response","id":1,"result":{"a":1},"error":{"code":"x","message":"y","retryable":false}}',
     "exactly one of"),
    (b'{"type":"response","id":"1","result":{}}', "`id` is not a JSON integer"),
])
def test_once_established_a_bad_response_still_breaks_the_protocol_in_its_words(payload: bytes, words: str) -> None:
    session = _established(0.0)
    session.request("tap", {"x": 1, "y": 1}, 5000, 0.1)
    session.receive(struct.pack(">I", len(payload)) + payload, 0.2)
    (event,) = [e for e in session.take_events() if isinstance(e, Disconnection)]
    assert session.state is State.CLOSED and words in str(session.failure)


json_plain = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8).filter(lambda t: not any("\ud800" <= c <= "\udfff" for c in t)),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=16,
)


@given(json_plain)
def test_a_plain_message_encodes_to_the_frame_encode_writes_but_for_a_floats_exponent(value: object) -> None:
    """The agent double sends its frames through `encode_plain` (issue 40: the 5,000-node read):
    the same length-prefixed compact UTF-8 JSON, decoding to the same message."""
    message = {"type": "response", "id": 1, "result": {"value": value}}
    fast, slow = encode_plain(message), encode(message)
    assert decode(fast) == decode(slow) == message
    if not any(isinstance(v, float) for v in _leaves(value)):
        assert fast == slow


def _leaves(value: object) -> list[object]:
    if isinstance(value, dict):
        return [leaf for v in value.values() for leaf in _leaves(v)]
    if isinstance(value, list):
        return [leaf for v in value for leaf in _leaves(v)]
    return [value]


def test_a_message_that_cannot_be_plain_json_is_refused_by_the_plain_encoder_in_its_words() -> None:
    with pytest.raises(ProtocolError, match="cannot encode a response message"):
        encode_plain({"type": "response", "id": 1, "result": {"text": "lone \ud800"}})
    with pytest.raises(ProtocolError, match="a message needs a string `type`"):
        encode_plain({"id": 1})
