"""The sync protocol: push (`SEND path,mode`, DATA in 64 KiB chunks, `DONE mtime`, adbd's status),
and the read side: `STA2` (stat), `LIST` (DENT entries until DONE) and `RECV` (DATA until DONE).

Each DATA header goes out in one write with its data (a header alone in a segment, or 4 KiB chunks,
halve the throughput). adbd answers once, after DONE: OKAY, or FAIL with its message, which becomes
`errors.SyncFailure`. When adbd refuses early and drops the connection, its FAIL is still read.
"""

from __future__ import annotations

import contextlib
import stat
import struct
import time
from dataclasses import dataclass
from typing import BinaryIO

from pytest_mobile_agent.adb import wire
from pytest_mobile_agent.adb.connection import AdbConnection
from pytest_mobile_agent.arguments import check_text
from pytest_mobile_agent.errors import Closed, InvalidArgument, ProtocolError, SyncFailure

_HEADER = struct.Struct("<4sI")


def send_spec(remote: str, mode: int) -> bytes:
    """`path,mode` with the mode as adb writes it: S_IFREG | permission bits, in decimal."""
    check_text("the remote path", remote)
    if not remote:
        raise InvalidArgument("the remote path is empty")
    spec = f"{remote},{stat.S_IFREG | (mode & 0o7777)}".encode()
    if len(spec) > wire.SYNC_MAX_PATH:
        raise InvalidArgument(f"the remote path is over adbd's limit of {wire.SYNC_MAX_PATH} bytes: {remote!r}")
    return spec


class Pusher:
    """Writes one file through a connection already switched to `sync:`."""

    def __init__(self, conn: AdbConnection, remote: str, spec: bytes) -> None:
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


# --- the read side: STAT, LIST, RECV ---------------------------------------------------------------

STA2 = b"STA2"
DENT = b"DENT"
_STAT_V1 = struct.Struct("<III")  # mode, size, mtime
_STAT_V2 = struct.Struct("<IQQIIIIQqqq")  # error, dev, ino, mode, nlink, uid, gid, size, atime, mtime, ctime
_DENT_V1 = struct.Struct("<IIII")  # mode, size, mtime, namelen
# adbd's errno_to_wire sends Linux's numbers; strerror on another host would name others
_LINUX_ERRNO = {1: "Operation not permitted", 2: "No such file or directory", 5: "I/O error",
                13: "Permission denied", 20: "Not a directory", 21: "Is a directory",
                36: "File name too long", 40: "Too many levels of symbolic links"}


@dataclass(frozen=True)
class RemoteStat:
    """What adbd's stat says of a path: `mode` as st_mode (type and permission bits)."""

    mode: int
    size: int
    mtime: int
    uid: int = 0
    gid: int = 0

    @property
    def is_dir(self) -> bool:
        return stat.S_ISDIR(self.mode)

    @property
    def is_file(self) -> bool:
        return stat.S_ISREG(self.mode)

    @property
    def is_symlink(self) -> bool:
        return stat.S_ISLNK(self.mode)


@dataclass(frozen=True)
class DirEntry:
    """One entry of a remote directory, as adbd's LIST gives it (lstat: a link is a link)."""

    name: str
    mode: int
    size: int
    mtime: int

    @property
    def is_dir(self) -> bool:
        return stat.S_ISDIR(self.mode)


def check_path(remote: str) -> bytes:
    if not remote:
        raise InvalidArgument("the remote path is empty")
    if "\x00" in remote:
        raise InvalidArgument(f"a remote path cannot hold a NUL byte: {remote!r}")
    path = remote.encode("utf-8", "surrogateescape")
    if len(path) > wire.SYNC_MAX_PATH:
        raise InvalidArgument(f"the remote path is over adbd's limit of {wire.SYNC_MAX_PATH} bytes: {remote!r}")
    return path


class SyncReader:
    """Reads through a connection already switched to `sync:`: stat, list, and a file's bytes."""

    def __init__(self, conn: AdbConnection) -> None:
        self.conn = conn

    def stat(self, remote: str) -> RemoteStat:
        """`STA2` (stat, following links; the stat_v2 feature of every adbd since Android 11), with
        adbd's errno as a SyncFailure ("No such file or directory"). An adbd without stat_v2 fails
        the request as an unknown command, which is carried through too."""
        operation = f"stat {remote}"
        self.conn.sendall(wire.encode_sync(STA2, check_path(remote)), operation)
        ident, word = _HEADER.unpack(self.conn.recv_exact(_HEADER.size, operation))
        if ident == STA2:
            rest = self.conn.recv_exact(_STAT_V2.size - 4, operation)
            _, _, _, mode, _, uid, gid, size, _, mtime, _ = _STAT_V2.unpack(struct.pack("<I", word) + rest)
            if word:
                raise SyncFailure(operation, _LINUX_ERRNO.get(word, f"errno {word}"))
            return RemoteStat(mode, size, mtime, uid, gid)
        if ident == wire.FAIL:
            raise SyncFailure(operation, self._fail_text(word, operation))
        raise ProtocolError(f"{operation}: expected STA2, got {ident!r}")

    def listdir(self, remote: str) -> list[DirEntry]:
        """`LIST`: the entries but `.` and `..`; a path that is no readable directory lists nothing,
        as adbd answers it (opendir's failure is an empty listing), so that is a SyncFailure here
        only when the path does not exist."""
        operation = f"list {remote}"
        self.conn.sendall(wire.encode_sync(wire.LIST, check_path(remote)), operation)
        entries: list[DirEntry] = []
        while True:
            ident, word = _HEADER.unpack(self.conn.recv_exact(_HEADER.size, operation))
            if ident == wire.FAIL:
                raise SyncFailure(operation, self._fail_text(word, operation))
            if ident not in (DENT, wire.DONE):
                raise ProtocolError(f"{operation}: expected DENT or DONE, got {ident!r}")
            mode, size, mtime, length = _DENT_V1.unpack(struct.pack("<I", word) + self.conn.recv_exact(12, operation))
            if ident == wire.DONE:
                return entries
            if length > wire.SYNC_MAX_PATH:
                raise ProtocolError(f"{operation}: a name of {length} bytes")
            name = self.conn.recv_exact(length, operation).decode("utf-8", "surrogateescape")
            if name not in (".", ".."):
                entries.append(DirEntry(name, mode, size, mtime))

    def recv(self, remote: str, sink: BinaryIO) -> int:
        """`RECV`: the file's bytes into `sink`, DATA by DATA until DONE; adbd's FAIL ("open failed:
        No such file or directory", "read failed: Is a directory") as a SyncFailure. The byte count."""
        operation = f"pull {remote}"
        self.conn.sendall(wire.encode_sync(wire.RECV, check_path(remote)), operation)
        total = 0
        while True:
            ident, word = _HEADER.unpack(self.conn.recv_exact(_HEADER.size, operation))
            if ident == wire.DONE:
                return total
            if ident == wire.FAIL:
                raise SyncFailure(operation, self._fail_text(word, operation))
            if ident != wire.DATA:
                raise ProtocolError(f"{operation}: expected DATA, DONE or FAIL, got {ident!r}")
            if word > wire.SYNC_MAX_CHUNK:
                raise ProtocolError(f"{operation}: a DATA of {word} bytes, over adbd's {wire.SYNC_MAX_CHUNK}")
            sink.write(self.conn.recv_exact(word, operation))
            total += word

    def quit(self) -> None:
        with contextlib.suppress(Closed):
            self.conn.sendall(wire.encode_sync(wire.QUIT, 0), "sync quit")

    def _fail_text(self, length: int, operation: str) -> str:
        if length > 0xFFFF:
            raise ProtocolError(f"{operation}: FAIL message of {length} bytes")
        return self.conn.recv_exact(length, operation).decode("utf-8", "replace") if length else "adbd gave no reason"
