"""Wire formats of the adb server protocol, shared by the client and the virtual device.

Three framings:

* smart-socket requests and replies: 4 lowercase hex digits of length, then the payload; a status
  is ``OKAY`` or ``FAIL`` followed by a length-prefixed message;
* shell protocol v2 packets: 1 byte id, u32 little-endian length, data;
* sync protocol messages: a 4 byte id and a u32 little-endian word, which is the length of the
  payload that follows for the ids that carry one (``DATA``, ``FAIL``, ``SEND``, ``RECV``, ``STAT``
  requests, ``LIST``) and a plain value otherwise (``OKAY``, ``DONE`` with an mtime, ``QUIT``).
"""

from __future__ import annotations

import struct

from pytest_mobile_agent.errors import ProtocolError

OKAY = b"OKAY"
FAIL = b"FAIL"

#: A system property only the virtual device sets (to "1"), so that a client reaching it by serial,
#: through any adb server, knows it drives the double (which runs the agent's stand-in jar). Real
#: devices have no `ro.mobile_agent.*` property.
VIRTUAL_DEVICE_PROPERTY = "ro.mobile_agent.virtual"

MAX_REQUEST = 0xFFFF

# --- smart-socket framing ------------------------------------------------------------------------


def encode_length_prefixed(payload: bytes) -> bytes:
    """4 lowercase hex digits of length, then the payload (host:version, devices-l replies)."""
    if len(payload) > MAX_REQUEST:
        raise ProtocolError(f"payload of {len(payload)} bytes exceeds the adb limit of {MAX_REQUEST}")
    return b"%04x" % len(payload) + payload


def encode_request(payload: str | bytes) -> bytes:
    """A request to the adb server (or a service name to adbd): 4 lowercase hex digits + payload."""
    data = payload.encode("utf-8") if isinstance(payload, str) else payload
    return encode_length_prefixed(data)


def encode_okay() -> bytes:
    return OKAY


def encode_fail(message: str) -> bytes:
    """FAIL + 4 hex digits of length + the message."""
    data = message.encode("utf-8", "replace")[:MAX_REQUEST]
    return FAIL + encode_length_prefixed(data)


_HEX = frozenset(b"0123456789abcdefABCDEF")


def parse_hex_length(four: bytes) -> int:
    """The length in a 4 hex digit prefix; ProtocolError on anything else."""
    if len(four) != 4 or not all(b in _HEX for b in four):
        raise ProtocolError(f"expected a 4 hex digit length, got {four!r}")
    return int(four, 16)


# --- shell protocol v2 ---------------------------------------------------------------------------

SHELL_STDIN = 0
SHELL_STDOUT = 1
SHELL_STDERR = 2
SHELL_EXIT = 3
SHELL_CLOSE_STDIN = 4
SHELL_WINDOW_SIZE = 5

SHELL_KINDS = frozenset(range(6))
SHELL_MAX_PACKET = 1024 * 1024  # adbd's own buffer is far smaller; anything larger is garbage

_SHELL_HEADER = struct.Struct("<BI")


def encode_shell_packet(kind: int, data: bytes) -> bytes:
    """1 byte id, u32 little-endian length, data."""
    if kind not in SHELL_KINDS:
        raise ProtocolError(f"unknown shell packet id {kind}")
    return _SHELL_HEADER.pack(kind, len(data)) + data


class ShellPacketDecoder:
    """Incremental decoder of shell v2 packets: feed any chunking, get whole packets back."""

    def __init__(self, max_packet: int = SHELL_MAX_PACKET) -> None:
        self._buffer = bytearray()
        self._max_packet = max_packet

    def feed(self, data: bytes) -> list[tuple[int, bytes]]:
        self._buffer += data
        packets: list[tuple[int, bytes]] = []
        offset = 0
        buffer = self._buffer
        while len(buffer) - offset >= _SHELL_HEADER.size:
            kind, length = _SHELL_HEADER.unpack_from(buffer, offset)
            if kind not in SHELL_KINDS:
                raise ProtocolError(f"unknown shell packet id {kind}")
            if length > self._max_packet:
                raise ProtocolError(f"shell packet of {length} bytes exceeds the limit of {self._max_packet}")
            end = offset + _SHELL_HEADER.size + length
            if end > len(buffer):
                break
            packets.append((kind, bytes(buffer[offset + _SHELL_HEADER.size : end])))
            offset = end
        if offset:
            del buffer[:offset]
        return packets

    @property
    def pending(self) -> int:
        """Bytes of an incomplete packet held back."""
        return len(self._buffer)


# --- sync protocol -------------------------------------------------------------------------------

SYNC_MAX_CHUNK = 64 * 1024
SYNC_MAX_PATH = 1024

SEND = b"SEND"
RECV = b"RECV"
STAT = b"STAT"
LIST = b"LIST"
DATA = b"DATA"
DONE = b"DONE"
QUIT = b"QUIT"

SYNC_WITH_PAYLOAD = frozenset({DATA, FAIL, SEND, RECV, STAT, LIST})
SYNC_WITHOUT_PAYLOAD = frozenset({OKAY, DONE, QUIT})

_SYNC_HEADER = struct.Struct("<4sI")
_SYNC_MAX_PAYLOAD = {DATA: SYNC_MAX_CHUNK, FAIL: MAX_REQUEST}
_SYNC_PATH_LIMIT = SYNC_MAX_PATH + 32  # SEND carries "path,mode"


def encode_sync(ident: bytes, value: int | bytes) -> bytes:
    """A sync message: the id and a u32 LE word (the length followed by the data when bytes)."""
    if len(ident) != 4:
        raise ProtocolError(f"a sync id is 4 bytes, got {ident!r}")
    if isinstance(value, (bytes, bytearray, memoryview)):
        return _SYNC_HEADER.pack(ident, len(value)) + bytes(value)
    return _SYNC_HEADER.pack(ident, value)


def encode_sync_header(ident: bytes, value: int) -> bytes:
    """Only the 8 byte header (for writers that join it with their data themselves)."""
    return _SYNC_HEADER.pack(ident, value)


class SyncDecoder:
    """Incremental decoder of sync messages: (id, u32, payload).

    For the ids that carry a payload (DATA, FAIL, SEND, RECV, STAT requests, LIST) the word is its
    length and the payload follows; for OKAY, DONE and QUIT the word is a value and the payload is
    empty. Any other id, or a payload over its limit, is a ProtocolError.
    """

    def __init__(self) -> None:
        self._buffer = bytearray()

    def feed(self, data: bytes) -> list[tuple[bytes, int, bytes]]:
        self._buffer += data
        messages: list[tuple[bytes, int, bytes]] = []
        offset = 0
        buffer = self._buffer
        while len(buffer) - offset >= _SYNC_HEADER.size:
            ident, word = _SYNC_HEADER.unpack_from(buffer, offset)
            start = offset + _SYNC_HEADER.size
            if ident in SYNC_WITHOUT_PAYLOAD:
                messages.append((ident, word, b""))
                offset = start
                continue
            if ident not in SYNC_WITH_PAYLOAD:
                raise ProtocolError(f"unknown sync id {ident!r}")
            limit = _SYNC_MAX_PAYLOAD.get(ident, _SYNC_PATH_LIMIT)
            if word > limit:
                raise ProtocolError(f"sync {ident.decode('ascii')} of {word} bytes exceeds the limit of {limit}")
            end = start + word
            if end > len(buffer):
                break
            messages.append((ident, word, bytes(buffer[start:end])))
            offset = end
        if offset:
            del buffer[:offset]
        return messages

    @property
    def pending(self) -> int:
        return len(self._buffer)
