"""The sync protocol's push: `SEND path,mode`, DATA in 64 KiB chunks, `DONE mtime`, adbd's status.

Each DATA header goes out in one write with its data (a header alone in a segment, or 4 KiB chunks,
halve the throughput). adbd answers once, after DONE: OKAY, or FAIL with its message, which becomes
`errors.SyncFailure`. When adbd refuses early and drops the connection, its FAIL is still read.
"""

from __future__ import annotations

import contextlib
import stat
import struct
import time
from typing import BinaryIO

from pytest_mobile_agent.adb import wire
from pytest_mobile_agent.adb.connection import Connection
from pytest_mobile_agent.errors import Closed, InvalidArgument, ProtocolError, SyncFailure

_HEADER = struct.Struct("<4sI")


def send_spec(remote: str, mode: int) -> bytes:
    """`path,mode` with the mode as adb writes it: S_IFREG | permission bits, in decimal."""
    if "\x00" in remote:
        raise InvalidArgument(f"a remote path cannot hold a NUL byte: {remote!r}")
    if not remote:
        raise InvalidArgument("the remote path is empty")
    spec = f"{remote},{stat.S_IFREG | (mode & 0o7777)}".encode()
    if len(spec) > wire.SYNC_MAX_PATH:
        raise InvalidArgument(f"the remote path is over adbd's limit of {wire.SYNC_MAX_PATH} bytes: {remote!r}")
    return spec


class Pusher:
    """Writes one file through a connection already switched to `sync:`."""

    def __init__(self, conn: Connection, remote: str, spec: bytes) -> None:
        self.conn = conn
        self.remote = remote
        self.operation = f"push {remote}"
        self._spec = spec

    def push_bytes(self, data: bytes | bytearray | memoryview, mtime: int) -> None:
        view = memoryview(data).cast("B")
        chunk = wire.SYNC_MAX_CHUNK
        # The first write carries SEND and the first DATA; every DATA header goes with its data.
        first = bytes(view[:chunk])
        self._write(wire.encode_sync(wire.SEND, self._spec) + _HEADER.pack(wire.DATA, len(first)) + first
                    if first else wire.encode_sync(wire.SEND, self._spec))
        for start in range(chunk, len(view), chunk):
            part = view[start : start + chunk]
            self._write(_HEADER.pack(wire.DATA, len(part)) + part)
        self._finish(mtime)

    def push_file(self, source: BinaryIO, mtime: int) -> None:
        buffer = bytearray(_HEADER.size + wire.SYNC_MAX_CHUNK)
        view = memoryview(buffer)
        self._write(wire.encode_sync(wire.SEND, self._spec))
        while True:
            count = source.readinto(view[_HEADER.size :])  # type: ignore[attr-defined]
            if not count:
                break
            _HEADER.pack_into(buffer, 0, wire.DATA, count)
            self._write(view[: _HEADER.size + count])
        self._finish(mtime)

    def _write(self, data: bytes | bytearray | memoryview) -> None:
        try:
            self.conn.sendall(data, self.operation)
        except Closed:
            # adbd refused and hung up mid-transfer: its FAIL, if it sent one, says why.
            self._read_status()
            raise

    def _finish(self, mtime: int) -> None:
        self._write(wire.encode_sync(wire.DONE, mtime & 0xFFFFFFFF))
        self._read_status()
        with contextlib.suppress(Closed):
            self.conn.sendall(wire.encode_sync(wire.QUIT, 0), self.operation)

    def _read_status(self) -> None:
        ident, word = _HEADER.unpack(self.conn.recv_exact(_HEADER.size, self.operation))
        if ident == wire.OKAY:
            return
        if ident == wire.FAIL:
            if word > 0xFFFF:
                raise ProtocolError(f"{self.operation}: FAIL message of {word} bytes")
            message = self.conn.recv_exact(word, self.operation).decode("utf-8", "replace") if word else ""
            raise SyncFailure(self.operation, message or "adbd refused the push without a message")
        raise ProtocolError(f"{self.operation}: expected OKAY or FAIL after DONE, got {ident!r}")


def default_mtime() -> int:
    return int(time.time())
