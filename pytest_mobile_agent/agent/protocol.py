"""Agent protocol 1 (docs/protocol.md): the frame codec and the host's protocol state machine.

Nothing here does I/O. `FrameDecoder` is fed bytes in any chunking and returns whole messages;
`HostSession` is fed bytes and the time, and hands back the frames to send and the events that
happened (a response, a protocol event, a sequence gap, a disconnection). The connection drives it
over a real stream; the tests drive it with an injected clock.
"""

from __future__ import annotations

import json
import logging
import struct
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

import msgspec

from pytest_mobile_agent._version import __version__
from pytest_mobile_agent.errors import (
    AgentError,
    ProtocolError,
    Timeout,
    Unauthorized,
    VersionMismatch,
)

log = logging.getLogger("pytest_mobile_agent.agent")

MAX_FRAME = 16 * 1024 * 1024
PROTOCOLS: tuple[int, ...] = (1,)
AGENT_NAME = "mobile-agent-android"
HOST_NAME = f"pytest-mobile-agent {__version__}"

LIVENESS_TIMEOUT = 3.0  # an agent silent this long is dead
PING_INTERVAL = 1.0  # the host pings after this long without sending anything
RESYNC_BACKOFF_FIRST = 0.05
RESYNC_BACKOFF_MAX = 1.0
RESYNC_DEADLINE_MS = 5000

_HEADER = struct.Struct(">I")

INT_MIN, INT_MAX = -(2**63), 2**63 - 1
"""Protocol 1's integers: a Java long. Android's org.json reads an integer literal past it as a
double (JSONTokener.readLiteral: Long.parseLong, else Double.valueOf), so both agents take one for a
number that is not an integer: out of range."""

Message = dict[str, Any]
JsonBytes = bytes | msgspec.Raw
"""A JSON text's UTF-8 bytes: a `bytes`, or msgspec's `Raw` view of the frame they arrived in."""

# --- the frame codec -----------------------------------------------------------------------------


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def encode_json(value: Any) -> bytes:
    """`value` as compact UTF-8 JSON (what a frame's payload is); ValueError or TypeError when it
    cannot be JSON."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode("utf-8")


def encode(message: Mapping[str, Any]) -> bytes:
    """One frame: the 4-byte big-endian length, then the message as compact UTF-8 JSON."""
    if not isinstance(message.get("type"), str):
        raise ProtocolError("a message needs a string `type`")
    try:
        payload = encode_json(message)
    except (TypeError, ValueError) as exc:
        raise ProtocolError(f"cannot encode a {message.get('type')} message: {exc}") from None
    if len(payload) > MAX_FRAME:
        raise ProtocolError(f"a {message['type']} frame of {len(payload)} bytes exceeds the limit of {MAX_FRAME}")
    return _HEADER.pack(len(payload)) + payload


_PLAIN_ENCODER = msgspec.json.Encoder()


def encode_plain(message: Mapping[str, Any]) -> bytes:
    """`encode` for a message built of JSON's own types alone (objects with str keys, arrays, str,
    int, bool, null, finite floats), as the agent double's messages are (its own values and what it
    decoded from the host's JSON): the same frame, a float's exponent perhaps written shorter
    (`1e16` for `1e+16`), at a tenth of the cost (msgspec; a 5,000-node snapshot is 2.2 MB, 9
    against 104 ms here). It would write NaN as null and bytes as base64, which `encode` refuses:
    such a message is not plain and goes to `encode`."""
    kind = message.get("type")
    if not isinstance(kind, str):
        raise ProtocolError("a message needs a string `type`")
    try:
        payload = _PLAIN_ENCODER.encode(message)
    except (TypeError, ValueError, OverflowError, msgspec.EncodeError) as exc:
        raise ProtocolError(f"cannot encode a {kind} message: {exc}") from None
    if len(payload) > MAX_FRAME:
        raise ProtocolError(f"a {kind} frame of {len(payload)} bytes exceeds the limit of {MAX_FRAME}")
    return _HEADER.pack(len(payload)) + payload


def _long_or_double(literal: str) -> int | float:
    """An integer literal as org.json reads it: a long when it fits, else a double (inf past 1e308)."""
    value = int(literal) if len(literal) <= 20 else None
    return value if value is not None and INT_MIN <= value <= INT_MAX else float(literal)


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object whose every key is named once: a duplicate is refused, never last-wins (as
    Python's dict and Android's org.json would take it: {"token": WRONG, "token": RIGHT})."""
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        twice = next(key for key, _ in pairs if key in seen or seen.add(key))  # type: ignore[func-returns-value]
        shown = twice if len(twice) <= 40 else twice[:37] + "..."
        raise ProtocolError(f"a frame whose object names the key {shown!r} twice: a duplicate key is refused")
    return obj


_PLAIN_DECODER = msgspec.json.Decoder()
_NOT_READ = object()
"""What `_loads_as_written_by_msgspec` answers for a payload the stdlib must read."""


def _loads_as_written_by_msgspec(payload: bytes, unique_keys: bool) -> Any:
    """The payload's value through msgspec (half the stdlib's time; it checks the UTF-8 as it
    goes), or `_NOT_READ` where the stdlib must read it: msgspec refused it (the stdlib's words
    name what is wrong), or keys must be unique and the text is not the one msgspec writes for the
    value. A text that is names no key twice, since writing the value again would have lost the
    duplicate's member. The host's frames and the double's are such texts; another writer's (other
    escapes, spacing or number forms) may not be, and take the stdlib's `object_pairs_hook` check."""
    try:
        value = _PLAIN_DECODER.decode(payload)
    except (msgspec.DecodeError, RecursionError):
        return _NOT_READ
    if unique_keys and _PLAIN_ENCODER.encode(value) != payload:
        return _NOT_READ
    return value


def _loads_with_the_stdlib(payload: bytes, unique_keys: bool) -> Any:
    try:
        text = payload.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ProtocolError(f"a frame that is not UTF-8 ({exc.reason} at byte {exc.start})") from None
    try:
        return _loads(text, unique_keys)
    except (ValueError, RecursionError) as exc:
        raise ProtocolError(f"a frame that is not JSON ({str(exc)[:80]})") from None


def _loads(text: str, unique_keys: bool) -> Any:
    hook = _unique_keys if unique_keys else None
    try:
        return json.loads(text, parse_constant=_reject_constant, object_pairs_hook=hook)
    except ValueError as exc:
        if "integer string conversion" not in str(exc):
            raise
    # an integer literal past Python's 4,300 digits: read as org.json reads every one past a long
    return json.loads(text, parse_constant=_reject_constant, parse_int=_long_or_double, object_pairs_hook=hook)


def decode_payload(payload: bytes, *, unique_keys: bool = True) -> Message:
    """The message in a frame's payload (the bytes after the length). An object naming a key twice
    is a ProtocolError unless `unique_keys` is False (the host's reads after the handshake: nothing
    after the handshake is a credential)."""
    message = _loads_as_written_by_msgspec(payload, unique_keys)
    if message is _NOT_READ:
        message = _loads_with_the_stdlib(payload, unique_keys)
    if not isinstance(message, dict):
        raise ProtocolError(f"a frame holding a JSON {type(message).__name__}, not an object")
    if not isinstance(message.get("type"), str):
        raise ProtocolError("a frame without a string `type`")
    return message


class RawResult:
    """A response's `result` as the bytes of its JSON object, decoded when someone asks: into a
    dict (`as_dict`, the stdlib decoder's reading, as `decode_payload` would give it), or by the
    caller's own typed decoder (the tree source decodes a snapshot straight into its nodes)."""

    __slots__ = ("data",)

    def __init__(self, data: JsonBytes) -> None:
        self.data = data
        """The object's bytes: a `bytes`, or msgspec's `Raw` view of the frame they arrived in."""

    @property
    def is_object(self) -> bool:
        return bytes(memoryview(self.data)[:1]) == b"{"

    def as_dict(self) -> Any:
        try:
            return _loads(bytes(self.data).decode("utf-8"), unique_keys=False)
        except (ValueError, RecursionError) as exc:  # msgspec read it as JSON: not expected
            raise ProtocolError(f"a response whose result is not JSON ({str(exc)[:80]})") from None

    def __repr__(self) -> str:
        return f"RawResult({len(self.data)} bytes)"


class _Envelope(msgspec.Struct):
    """What the host reads of a frame before it knows the request a response answers: the type,
    the id, the error, and the result's bytes, checked as JSON and left undecoded."""

    type: Any = None
    id: Any = msgspec.UNSET
    result: msgspec.Raw = msgspec.field(default_factory=msgspec.Raw)
    error: Any = msgspec.UNSET


_ENVELOPE = msgspec.json.Decoder(_Envelope)


def decode_response_lazily(payload: bytes | memoryview) -> Message:
    """A frame's message as `decode_payload(payload, unique_keys=False)` gives it, but a response's
    `result` is a `RawResult`: the bytes of a 5,000-node snapshot (2.4 MB) become no dicts here,
    and the tree source decodes them into typed nodes (session/tree.py). msgspec reads the
    envelope (checking the whole frame is JSON); every other frame, and any that msgspec refuses,
    goes through `decode_payload`, whose words name what is wrong."""
    try:
        envelope = _ENVELOPE.decode(payload)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        return decode_payload(bytes(payload), unique_keys=False)
    if envelope.type != "response" or not envelope.result:
        return decode_payload(bytes(payload), unique_keys=False)
    message: Message = {"type": "response", "result": RawResult(envelope.result)}
    if envelope.id is not msgspec.UNSET:  # a response without one is refused for that, as the whole decoder's
        message["id"] = envelope.id
    if envelope.error is not msgspec.UNSET:
        message["error"] = envelope.error
    return message


def decode(frame: bytes) -> Message:
    """The message of exactly one whole frame (length prefix included)."""
    decoder = FrameDecoder()
    messages = decoder.feed(frame)
    if len(messages) != 1 or decoder.pending:
        raise ProtocolError(f"expected exactly one whole frame, got {len(messages)} and {decoder.pending} bytes more")
    return messages[0]


class FrameDecoder:
    """Incremental frame decoder: feed any chunking, get whole messages back.

    A length of 0 or over the limit is refused as soon as its 4 bytes arrive, so a hostile length
    never makes the decoder wait for 4 GiB. After a ProtocolError the decoder is unusable (the
    connection is closed).
    """

    def __init__(self, max_frame: int = MAX_FRAME, *, unique_keys: bool = True, lazy_results: bool = False) -> None:
        self._buffer = bytearray()
        self._max_frame = max_frame
        self._failed: ProtocolError | None = None
        self.unique_keys = unique_keys
        """Refuse an object naming a key twice (decode_payload); the host turns it off once established."""
        self.lazy_results = lazy_results
        """Leave a response's result undecoded (`decode_response_lazily`); the host turns it on once
        established, with `unique_keys` off."""

    def feed(self, data: bytes) -> list[Message]:
        if self._failed is not None:
            raise self._failed
        self._buffer += data
        messages: list[Message] = []
        offset = 0
        buffer = self._buffer
        lazy = self.lazy_results and not self.unique_keys
        try:
            while len(buffer) - offset >= _HEADER.size:
                (length,) = _HEADER.unpack_from(buffer, offset)
                if length == 0:
                    raise ProtocolError("a frame of length 0")
                if length > self._max_frame:
                    raise ProtocolError(f"a frame of {length} bytes exceeds the limit of {self._max_frame}")
                end = offset + _HEADER.size + length
                if end > len(buffer):
                    break
                if lazy:  # read in place: a result's Raw is a view of this buffer, no copy of 2 MB
                    messages.append(decode_response_lazily(memoryview(buffer)[offset + _HEADER.size : end]))
                else:
                    payload = bytes(memoryview(buffer)[offset + _HEADER.size : end])
                    messages.append(decode_payload(payload, unique_keys=self.unique_keys))
                offset = end
        except ProtocolError as exc:
            self._failed = exc
            self._buffer = bytearray()
            raise
        if offset:
            if lazy:  # the views decoded above keep this buffer, never changed again: the rest moves
                self._buffer = bytearray(buffer[offset:]) if offset < len(buffer) else bytearray()
            else:
                del buffer[:offset]
        return messages

    @property
    def pending(self) -> int:
        """Bytes of an incomplete frame held back."""
        return len(self._buffer)


# --- message shapes ------------------------------------------------------------------------------

_INT, _NUM, _STR, _BOOL, _OBJ, _LIST = "integer", "number", "string", "boolean", "object", "array"


def is_integer(value: Any) -> bool:
    """A JSON integer within protocol 1's range (a Java long)."""
    return isinstance(value, int) and not isinstance(value, bool) and INT_MIN <= value <= INT_MAX


def _is(kind: str, value: Any) -> bool:
    if kind == _INT:
        return is_integer(value)
    if kind == _NUM:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind == _STR:
        return isinstance(value, str)
    if kind == _BOOL:
        return isinstance(value, bool)
    if kind == _OBJ:
        return isinstance(value, dict)
    return isinstance(value, list)


REQUIRED: dict[str, dict[str, str]] = {
    "auth": {"token": _STR},
    "refused": {"code": _STR, "message": _STR},
    "hello": {"agent": _STR, "version": _STR, "build": _STR, "protocols": _LIST, "capabilities": _LIST,
              "pid": _INT, "socket": _STR},
    "welcome": {"protocol": _INT, "host": _STR},
    "refuse": {"code": _STR, "message": _STR},
    "closing": {"reason": _STR},
    "request": {"id": _INT, "method": _STR, "deadline_ms": _NUM, "params": _OBJ},
    "response": {"id": _INT},
    "event": {"seq": _INT, "name": _STR, "data": _OBJ},
    "ping": {"nonce": _INT},
    "pong": {"nonce": _INT},
}
_ERROR_KEYS = {"code": _STR, "message": _STR, "retryable": _BOOL}


def _check_keys(where: str, obj: Mapping[str, Any], keys: Mapping[str, str]) -> None:
    for key, kind in keys.items():
        if key not in obj:
            raise ProtocolError(f"a {where} without `{key}`")
        if not _is(kind, obj[key]):
            raise ProtocolError(f"a {where} whose `{key}` is not a JSON {kind}")


def validate(message: Mapping[str, Any]) -> None:
    """ProtocolError when a message of a known type lacks a required key or has one of the wrong
    JSON type. Unknown keys, and messages of unknown types, pass (forward compatibility)."""
    kind = message.get("type")
    keys = REQUIRED.get(kind) if isinstance(kind, str) else None
    if keys is None:
        return
    _check_keys(f"{kind} frame", message, keys)
    if kind == "request" and message["id"] < 1:
        raise ProtocolError(f"a request whose `id` is {message['id']}, not a positive integer")
    if kind == "hello":
        if not all(_is(_INT, p) for p in message["protocols"]):
            raise ProtocolError("a hello whose `protocols` are not integers")
        if not all(_is(_STR, c) for c in message["capabilities"]):
            raise ProtocolError("a hello whose `capabilities` are not strings")
    elif kind == "response":
        has_result, has_error = "result" in message, "error" in message
        if has_result == has_error:
            raise ProtocolError("a response needs exactly one of `result` and `error`")
        result = message.get("result")
        if has_result and not (result.is_object if isinstance(result, RawResult) else _is(_OBJ, result)):
            raise ProtocolError("a response whose `result` is not a JSON object")
        if has_error:
            if not _is(_OBJ, message["error"]):
                raise ProtocolError("a response whose `error` is not a JSON object")
            _check_keys("response error", message["error"], _ERROR_KEYS)


def deadline_problem(deadline_ms: Any) -> str | None:
    """Why a request's `deadline_ms` (a JSON number) cannot be used, or None: it must be an integer
    in 0..2^63-1; anything else is `invalid_params`, answered (docs/protocol.md section 4)."""
    if is_integer(deadline_ms) and deadline_ms >= 0:
        return None
    return f"deadline_ms must be an integer of milliseconds in 0..{INT_MAX}, not {_short(deadline_ms)}"


def params_problem(params: Any, path: str = "params") -> str | None:
    """Why params cannot go to an agent as they are, or None: an integer past protocol 1's range
    (the agent would read a double) or a float that is not finite (not JSON)."""
    if isinstance(params, bool) or params is None or isinstance(params, str):
        return None
    if isinstance(params, int):
        return (
            None
            if is_integer(params)
            else f"{path} is {_short(params)}, out of protocol 1's integers ({INT_MIN}..{INT_MAX})"
        )
    if isinstance(params, float):
        return None if params == params and abs(params) != float("inf") else f"{path} is {params}, not a JSON number"
    if isinstance(params, Mapping):
        items: Any = ((f"{path}.{k}", v) for k, v in params.items())
    elif isinstance(params, (list, tuple)):
        items = ((f"{path}[{i}]", v) for i, v in enumerate(params))
    else:
        return None  # encode() says what cannot be JSON at all
    return next((problem for where, value in items if (problem := params_problem(value, where))), None)


def _short(value: Any) -> str:
    if isinstance(value, int) and abs(value) >= 10**30:  # str() of one past 4,300 digits raises
        return f"an integer of about {int(value.bit_length() * 0.30103) + 1} digits"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


# --- values and events ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Hello:
    agent: str
    version: str
    build: str
    protocols: tuple[int, ...]
    capabilities: tuple[str, ...]
    pid: int
    socket: str

    @classmethod
    def from_message(cls, message: Mapping[str, Any]) -> Hello:
        return cls(
            agent=message["agent"], version=message["version"], build=message["build"],
            protocols=tuple(message["protocols"]), capabilities=tuple(message["capabilities"]),
            pid=message["pid"], socket=message["socket"],
        )

    def names(self) -> str:
        """`mobile-agent-android 0.1.0 (build 7fec0cb05341)`."""
        return f"{self.agent} {self.version} (build {self.build})"


@dataclass(frozen=True)
class Established:
    """The handshake completed: the host sent `welcome` with `protocol`."""

    hello: Hello
    protocol: int


class Response:
    """A response to the request `id`: `result`, or `error` (code, message, retryable).

    The result may arrive as its bytes (`RawResult`): `result` decodes them into a dict on first
    use, `result_bytes` hands them to a typed decoder untouched."""

    __slots__ = ("id", "error", "_result")

    def __init__(self, id: int, result: dict[str, Any] | RawResult | None, error: dict[str, Any] | None) -> None:
        self.id = id
        self.error = error
        self._result = result

    @property
    def result(self) -> dict[str, Any] | None:
        result = self._result
        if isinstance(result, RawResult):
            result = self._result = result.as_dict()
        return result

    def result_bytes(self) -> JsonBytes | None:
        """The result as JSON bytes: as they arrived where they were kept, else encoded again."""
        result = self._result
        if isinstance(result, RawResult):
            return result.data
        return None if result is None else encode_json(result)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Response):
            return NotImplemented
        return (self.id, self.result, self.error) == (other.id, other.result, other.error)

    __hash__ = None  # type: ignore[assignment]  # mutable contents, as the dataclass it replaced

    def __repr__(self) -> str:
        return f"Response(id={self.id!r}, result={self._result!r}, error={self.error!r})"


@dataclass(frozen=True)
class ProtocolEvent:
    """An agent event (`window_changed`, `windows_changed`) and the host time it arrived. The one
    class for it: the connection hands it to its sink, and the session's stream passes it on."""

    seq: int
    name: str
    data: dict[str, Any]
    received_at: float

    @property
    def window(self) -> int | None:
        """The window a `window_changed` names (an integer, else None)."""
        value = self.data.get("window")
        return value if isinstance(value, int) else None

    @property
    def windows(self) -> tuple[int, ...]:
        """The windows a `windows_changed` names (its integers only)."""
        value = self.data.get("windows")
        if isinstance(value, list):
            return tuple(v for v in value if isinstance(v, int))
        return ()


@dataclass(frozen=True)
class OutOfSync:
    """An event's seq skipped ahead: `got` arrived where `expected` was due. A resync follows."""

    expected: int
    got: int


@dataclass(frozen=True)
class Resynced:
    """The agent resynchronized; the next event carries `seq + 1`."""

    seq: int


class Hint(str, Enum):
    """What a caller can do after a disconnection."""

    REATTACH = "attach again to relaunch or reuse the agent"
    REPLACED = "another host connection took the agent over; attach again to take it back"
    RELAUNCH = "the agent exited; attach again to launch a new one"


@dataclass(frozen=True)
class Disconnection:
    """The connection is over; `reconnect_hint` says what to do about it (a `Hint`'s text). An
    event, the last one of a connection's stream; `errors.Disconnected` is the exception a call
    on a disconnected connection raises."""

    reason: str
    reconnect_hint: str = Hint.REATTACH.value

    def __post_init__(self) -> None:
        if isinstance(self.reconnect_hint, Hint):  # the text, whatever str() of an Enum member says
            object.__setattr__(self, "reconnect_hint", self.reconnect_hint.value)


HostEvent = Established | Response | ProtocolEvent | OutOfSync | Resynced | Disconnection
"""What `HostSession.take_events` returns."""

_CLOSING_HINTS = {
    "replaced": Hint.REPLACED.value,
    "shutdown": Hint.RELAUNCH.value,
    "idle": Hint.RELAUNCH.value,
}


# --- the host's state machine --------------------------------------------------------------------


class State(Enum):
    AUTHENTICATING = "authenticating"
    ESTABLISHED = "established"
    CLOSED = "closed"


@dataclass
class _Resync:
    """The resync the host owes the agent: in flight as `request_id`, or due at `retry_at`."""

    request_id: int | None = None
    retry_at: float | None = None
    backoff: float = RESYNC_BACKOFF_FIRST
    deadline: float | None = None


@dataclass
class HostSession:
    """The host's side of one connection, fed bytes and a clock.

    Drive it: `start(now)`; then `receive(data, now)` for bytes read, `stream_ended(now)` at the
    end of the stream, `tick(now)` when `next_timer()` falls due; send whatever `take_outgoing()`
    returns and act on `take_events()`. `request()` queues a request and returns its id.
    """

    token: str = field(repr=False)
    protocols: tuple[int, ...] = PROTOCOLS
    host: str = HOST_NAME
    liveness_timeout: float = LIVENESS_TIMEOUT
    ping_interval: float = PING_INTERVAL
    state: State = State.AUTHENTICATING
    hello: Hello | None = None
    protocol: int | None = None
    failure: Exception | None = None
    _decoder: FrameDecoder = field(default_factory=FrameDecoder, repr=False)
    _outgoing: list[bytes] = field(default_factory=list, repr=False)
    _events: list[HostEvent] = field(default_factory=list, repr=False)
    _next_id: int = 1
    _next_nonce: int = 1
    _last_sent: float = 0.0
    _last_received: float = 0.0
    _expected_seq: int = 1
    _resync: _Resync | None = None
    _resync_on_next_read: bool = False
    _internal: set[int] = field(default_factory=set, repr=False)
    _resync_ids: set[int] = field(default_factory=set, repr=False)

    # --- driving ------------------------------------------------------------------------------

    def start(self, now: float) -> None:
        self._last_received = now
        self._send({"type": "auth", "token": self.token}, now)

    @property
    def closed(self) -> bool:
        return self.state is State.CLOSED

    def receive(self, data: bytes, now: float) -> None:
        if self.closed:
            return
        self._last_received = now
        try:
            for message in self._decoder.feed(data):
                validate(message)
                self._handle(message, now)
                if self.closed:  # a message can close the session (a refusal, a goodbye)
                    return
        except ProtocolError as exc:
            self.failure = exc
            self._close(f"the agent broke protocol 1: {exc}", Hint.REATTACH.value)

    def stream_ended(self, now: float) -> None:
        if self.state is State.CLOSED:
            return
        if self.state is State.AUTHENTICATING:
            self.failure = ProtocolError("the agent's stream ended during the handshake")
        self._close("the agent's stream ended (the agent was stopped or killed)", Hint.REATTACH.value)

    def tick(self, now: float) -> None:
        if self.state is State.CLOSED:
            return
        if now - self._last_received >= self.liveness_timeout:
            silent = now - self._last_received
            if self.state is State.AUTHENTICATING:
                self.failure = Timeout("the handshake with the agent", self.liveness_timeout,
                                       detail=f"nothing received for {silent:.1f} s")
            self._close(f"the agent was silent for {silent:.1f} s and is taken for dead", Hint.REATTACH.value)
            return
        if self.state is not State.ESTABLISHED:
            return
        self._tick_resync(now)
        if now - self._last_sent >= self.ping_interval:
            self._send({"type": "ping", "nonce": self._take_nonce()}, now)

    def next_timer(self) -> float:
        """The time at which `tick` has something to do."""
        due = self._last_received + self.liveness_timeout
        if self.state is State.ESTABLISHED:
            due = min(due, self._last_sent + self.ping_interval)
            resync = self._resync
            if resync is not None:
                if resync.retry_at is not None:
                    due = min(due, resync.retry_at)
                if resync.deadline is not None:
                    due = min(due, resync.deadline)
        return due

    def take_outgoing(self) -> bytes:
        data = b"".join(self._outgoing)
        self._outgoing.clear()
        return data

    def take_events(self) -> list[HostEvent]:
        events, self._events = self._events, []
        return events

    def close(self, reason: str = "the host closed the connection") -> None:
        self._close(reason, Hint.REATTACH.value)

    # --- requests ---------------------------------------------------------------------------

    def request(self, method: str, params: Mapping[str, Any], deadline_ms: int, now: float) -> int:
        """Queue a request; its response comes back as a `Response` with the returned id.

        A read (`snapshot`) after a resync the agent reported failed sends that resync first.
        """
        if self.state is not State.ESTABLISHED:
            raise ProtocolError(f"cannot send {method}: the connection is {self.state.value}")
        if is_integer(deadline_ms):
            deadline_ms = max(0, deadline_ms)  # a budget already spent is 0: the agent answers at once
        problem = params_problem(dict(params)) or deadline_problem(deadline_ms)
        if problem is not None:  # what the agent would answer, said before anything is sent
            raise AgentError("invalid_params", f"{problem} (refused by the host, not sent)", method=method)
        if method == "snapshot" and self._resync_on_next_read and self._resync is None:
            self._resync_on_next_read = False
            self._start_resync(now)
        request_id = self._send_request(method, params, deadline_ms, now)
        if method == "resync":
            self._resync_ids.add(request_id)
        return request_id

    def _send_request(self, method: str, params: Mapping[str, Any], deadline_ms: int, now: float) -> int:
        request_id = self._next_id
        self._next_id += 1
        self._send({"type": "request", "id": request_id, "method": method,
                    "deadline_ms": deadline_ms, "params": dict(params)}, now)
        return request_id

    @property
    def resync_pending(self) -> bool:
        """A resync is in flight or waiting for its backoff."""
        return self._resync is not None

    # --- internals --------------------------------------------------------------------------

    def _send(self, message: Mapping[str, Any], now: float) -> None:
        self._outgoing.append(encode(message))
        self._last_sent = now

    def _take_nonce(self) -> int:
        nonce = self._next_nonce
        self._next_nonce += 1
        return nonce

    def _close(self, reason: str, hint: str) -> None:
        if self.state is State.CLOSED:
            return
        self.state = State.CLOSED
        self._events.append(Disconnection(reason, hint))

    def _handle(self, message: Message, now: float) -> None:
        kind = message["type"]
        if kind == "closing":
            reason = message["reason"]
            if self.state is State.AUTHENTICATING:
                self.failure = ProtocolError(f"the agent closed the connection during the handshake ({reason})")
            self._close(f"the agent closed the connection ({reason})", _CLOSING_HINTS.get(reason, Hint.REATTACH.value))
        elif self.state is State.AUTHENTICATING:
            self._handle_handshake(message, now)
        elif kind == "response":
            self._handle_response(message, now)
        elif kind == "event":
            self._handle_event(message, now)
        elif kind == "ping":
            self._send({"type": "pong", "nonce": message["nonce"]}, now)
        elif kind == "pong":
            pass  # receiving it already counted as a sign of life
        elif kind in REQUIRED:
            raise ProtocolError(f"an unexpected {kind} frame after the handshake")
        else:
            log.debug("ignoring a frame of unknown type %r", kind)

    def _handle_handshake(self, message: Message, now: float) -> None:
        kind = message["type"]
        if kind == "refused":
            code, text = message["code"], message["message"]
            self.failure = (
                Unauthorized(f"the agent refused the connection: {code} ({text})")
                if code == "unauthorized"
                else ProtocolError(f"the agent refused the connection: {code} ({text})")
            )
            self._close(f"the agent refused the connection ({code})", Hint.REATTACH.value)
            return
        if kind != "hello":
            raise ProtocolError(f"a {kind} frame before the hello")
        hello = Hello.from_message(message)
        self.hello = hello
        common = sorted(set(hello.protocols) & set(self.protocols))
        if not common:
            spoken = list(self.protocols)
            self._send(
                {"type": "refuse", "code": "version_mismatch", "message": f"host speaks protocols {spoken}"}, now
            )
            self.failure = VersionMismatch(
                f"{hello.names()} speaks protocols {list(hello.protocols)}; this host speaks {spoken}"
            )
            self._close("refused with version_mismatch: no common protocol", Hint.RELAUNCH.value)
            return
        self.protocol = common[-1]
        self._send({"type": "welcome", "protocol": self.protocol, "host": self.host}, now)
        self.state = State.ESTABLISHED
        self._decoder.unique_keys = False  # the handshake's frames are checked; responses are the hot path
        self._decoder.lazy_results = True  # a result is decoded by who asked for it, typed where it can be
        self._events.append(Established(hello, self.protocol))

    def _handle_response(self, message: Message, now: float) -> None:
        request_id = message["id"]
        response = Response(request_id, message.get("result"), message.get("error"))
        if request_id in self._resync_ids:
            self._resync_ids.discard(request_id)
            if response.result is not None:
                self._resynced(response.result, now)
        if self._resync is not None and request_id == self._resync.request_id:
            self._internal.discard(request_id)
            self._resync_answered(response.result, response.error, now)
            return
        if request_id in self._internal:
            self._internal.discard(request_id)  # a resync answered after its deadline: already retried
            return
        self._events.append(response)

    def _resynced(self, result: Mapping[str, Any], now: float) -> None:
        seq = result.get("seq")
        if not isinstance(seq, int) or isinstance(seq, bool):
            raise ProtocolError("a resync result without an integer `seq`")
        self._expected_seq = seq + 1
        self._resync = None
        self._events.append(Resynced(seq))

    def _resync_answered(self, result: Mapping[str, Any] | None, error: Mapping[str, Any] | None, now: float) -> None:
        assert self._resync is not None
        if result is not None:
            self._resynced(result, now)
            return
        assert error is not None
        if error["retryable"]:
            self._schedule_resync_retry(now, f"{error['code']}: {error['message']}")
        else:
            log.warning("the agent failed the resync (%s: %s); it is sent again on the next read",
                        error["code"], error["message"])
            self._resync = None
            self._resync_on_next_read = True

    def _schedule_resync_retry(self, now: float, why: str) -> None:
        resync = self._resync
        assert resync is not None
        resync.request_id = None
        resync.deadline = None
        resync.retry_at = now + resync.backoff
        log.debug("resync failed (%s); again in %.0f ms", why, resync.backoff * 1000)
        resync.backoff = min(resync.backoff * 2, RESYNC_BACKOFF_MAX)

    def _start_resync(self, now: float) -> None:
        resync = self._resync or _Resync()
        self._resync = resync
        resync.retry_at = None
        resync.request_id = self._send_request("resync", {}, RESYNC_DEADLINE_MS, now)
        self._internal.add(resync.request_id)
        resync.deadline = now + RESYNC_DEADLINE_MS / 1000

    def _tick_resync(self, now: float) -> None:
        resync = self._resync
        if resync is None:
            return
        if resync.retry_at is not None and now >= resync.retry_at:
            self._start_resync(now)
        elif resync.deadline is not None and now >= resync.deadline:
            self._schedule_resync_retry(now, "no answer within its deadline")

    def _handle_event(self, message: Message, now: float) -> None:
        seq = message["seq"]
        if self._checking_seq:
            if seq != self._expected_seq:
                self._events.append(OutOfSync(self._expected_seq, seq))
                self._start_resync(now)
            else:
                self._expected_seq = seq + 1
        self._events.append(ProtocolEvent(seq, message["name"], message["data"], now))

    @property
    def _checking_seq(self) -> bool:
        """Out of sync already, the host stops checking: while a resync is owed (in flight, waiting
        for its backoff, or failed and due with the next read) a gap is no news, and a new resync
        per event would be a storm."""
        return self._resync is None and not self._resync_on_next_read

