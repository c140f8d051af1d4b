"""adbd's `sync:` service on the virtual device (push, pull, stat, list), as file_sync_service.cpp.

Requests are an id, a u32 little-endian length and a path. What adbd does, and so this does:

* `SEND path,mode` then `DATA` chunks (64 KiB at most) and `DONE mtime`: an existing regular file
  is unlinked first; missing parent directories are made (0775); the file is created as the peer
  (the shell user) with the owner's permission bits copied to group and other (`mode &= 0777;
  mode |= (mode >> 3) & 070; mode |= (mode >> 3) & 07`: 0o644 arrives 0666, 0o755 0777, 0o444 stays
  0444); the mtime comes from DONE; the reply is `OKAY`. A refusal is `FAIL` with adbd's text,
  "couldn't create file: Read-only file system" (or "...: Permission denied", "...: Is a
  directory"), "secure_mkdirs failed: <strerror>", "missing , in ID_SEND", "path too long",
  "invalid data message", "oversize data message"; adbd then reads and drops DATA until DONE and
  closes the stream. A mode with S_IFLNK makes a symbolic link to the data.
* `RECV path`: `DATA` chunks of at most 65528 bytes (adbd reads into its 64 KiB buffer less the
  8-byte header: recv_uncompressed) then `DONE`; "open failed: <strerror>" and the stream closes.
  A directory opens (O_RDONLY) and fails at the read: "read failed: Is a directory".
* `STAT path`: `STAT mode size mtime` of lstat, zeros when it fails. `STA2`/`LST2` (the stat_v2
  feature): the same id back, errno, dev, ino, mode, nlink, uid, gid, size, atime, mtime, ctime.
* `LIST path`: a `DENT mode size mtime namelen name` per entry, `.` and `..` included, then `DONE`
  with zeros; `LIS2` gives `DNT2` entries with the v2 fields.
* `SND2`/`RCV2` (the sendrecv_v2 feature, adb 35+): the path request, then a setup packet of the
  same id (`SND2 mode flags` / `RCV2 flags`); no compression (this device advertises none, so a
  client sends flags 0; a compression flag fails with "unsupported compression"); `SND2` with the
  dry-run flag (sendrecv_v2_dry_run_send) reads the data and writes nothing.
* `QUIT` ends the service; an unknown id fails with "unknown command %08x" and closes it.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat as stat_module
import struct

from pytest_mobile_agent import errors
from pytest_mobile_agent.adb.wire import (
    DATA,
    DONE,
    FAIL,
    LIST,
    OKAY,
    QUIT,
    RECV,
    SEND,
    STAT,
    SYNC_MAX_CHUNK,
    SYNC_MAX_PATH,
    encode_sync,
)
from pytest_mobile_agent.virtual.adbd.daemon import Adbd
from pytest_mobile_agent.virtual.kernel.creds import SHELL_GROUPS, Cred
from pytest_mobile_agent.virtual.kernel.fs import StatResult
from pytest_mobile_agent.virtual.kernel.streams import PLAIN, OpenFile, Pipe, _deadline

STA2, LST2, LIS2, DNT2, DENT = b"STA2", b"LST2", b"LIS2", b"DNT2", b"DENT"
SND2, RCV2 = b"SND2", b"RCV2"
SYNC_FLAG_DRY_RUN = 0x8000_0000
_SETUP = {SND2: struct.Struct("<4sII"), RCV2: struct.Struct("<4sI")}  # sync_send_v2, sync_recv_v2
_HEADER = struct.Struct("<4sI")
_V2 = struct.Struct("<IQQIIIIQqqq")
_DENT = struct.Struct("<4sIIII")
_PATH_IDS = frozenset({SEND, RECV, STAT, LIST, STA2, LST2, LIS2, SND2, RCV2})
RECV_CHUNK = SYNC_MAX_CHUNK - _HEADER.size


def adbd_mode(mode: int) -> int:
    """The permission bits adbd creates a pushed file with: owner bits copied to group and other."""
    mode &= 0o777
    mode |= (mode >> 3) & 0o070
    mode |= (mode >> 3) & 0o007
    return mode


def _strtoul(text: str) -> int:
    """C's strtoul(text, NULL, 0): decimal, 0x hex, 0 octal; the leading digits only."""
    text = text.strip()
    base, digits = 10, "0123456789"
    if text[:2].lower() == "0x":
        base, digits, text = 16, "0123456789abcdefABCDEF", text[2:]
    elif text.startswith("0"):
        base, digits = 8, "01234567"
    end = 0
    while end < len(text) and text[end] in digits:
        end += 1
    return int(text[:end], base) if end else 0


def _strerror(exc: OSError) -> str:
    return exc.strerror or str(exc)


class SyncSession:
    """The device side of one `sync:` stream; requests are served as their bytes arrive."""

    def __init__(self, adbd: Adbd, peer_uid: int) -> None:
        self.kernel = adbd.system.kernel
        self.fs = adbd.system.fs
        groups = frozenset({0}) if peer_uid == 0 else SHELL_GROUPS
        self.cred = Cred(peer_uid, groups, adbd.process.pid)
        self.outbox = Pipe(self.kernel, 1 << 62)
        self.outbox.readers = 1
        self.outbox.writers = 1
        self._buffer = bytearray()
        self._closed = False
        self._ended = False
        # the SEND in progress
        self._sending: OpenFile | None = None
        self._send_path = ""
        self._send_mode = 0
        self._link_data: bytearray | None = None
        self._draining = False
        self._dry_run = False

    # --- stream interface ---------------------------------------------------------------------------

    @property
    def closed(self) -> bool:
        return self._closed

    def send(self, data: bytes) -> None:
        if self._closed:
            raise errors.Closed("sync: send on a closed stream")
        if self._ended:
            return
        with self.kernel.lock:
            self._buffer += data
            self._process()

    sendall = send

    def recv(self, timeout: float | None = None) -> bytes:
        if self._closed:
            return b""
        data = self.outbox.read(256 * 1024, PLAIN, _deadline(timeout))
        if data is None:
            raise errors.Timeout("sync: recv", timeout)
        return data

    def close(self) -> None:
        with self.kernel.lock:
            self._closed = True
            if self._sending is not None:  # adbd unlinks a file whose SEND did not finish (its fail path)
                self._abort_send()
            self._end()
            self.outbox.buffer.clear()

    # --- framing ----------------------------------------------------------------------------------------

    def _reply(self, data: bytes) -> None:
        self.outbox.buffer += data
        self.outbox.cond.notify_all()

    def _fail(self, message: str) -> None:
        self._reply(encode_sync(FAIL, message.encode()))

    def _end(self) -> None:
        if not self._ended:
            self._ended = True
            self._sending = None
            if self.outbox.writers:
                self.outbox.writers -= 1
            self.outbox.cond.notify_all()

    def _process(self) -> None:
        while not self._ended and len(self._buffer) >= _HEADER.size:
            ident, word = _HEADER.unpack_from(self._buffer)
            if self._sending is not None or self._link_data is not None or self._draining:
                if not self._send_message(ident, word):
                    return
                continue
            if ident in _PATH_IDS:
                if word > SYNC_MAX_PATH:
                    self._fail("path too long")
                    self._end()
                    return
                setup = _SETUP.get(ident)
                if len(self._buffer) < _HEADER.size + word + (setup.size if setup else 0):
                    return
                path = bytes(self._buffer[_HEADER.size : _HEADER.size + word]).decode(errors="surrogateescape")
                del self._buffer[: _HEADER.size + word]
                if setup is not None:
                    fields = setup.unpack_from(self._buffer)
                    del self._buffer[: setup.size]
                    self._request_v2(ident, path, *fields[1:])
                    continue
                self._request(ident, path)
            elif ident == QUIT:
                del self._buffer[: _HEADER.size]
                self._end()
            else:
                self._fail(f"unknown command {int.from_bytes(ident, 'little'):08x}")
                self._end()

    def _request(self, ident: bytes, path: str) -> None:
        if ident == SEND:
            self._start_send(path)
        elif ident == RECV:
            self._recv(path)
        elif ident == STAT:
            self._stat_v1(path)
        elif ident in (STA2, LST2):
            self._stat_v2(ident, path)
        elif ident == LIST:
            self._list(path, v2=False)
        else:
            self._list(path, v2=True)

    def _request_v2(self, ident: bytes, path: str, *setup: int) -> None:
        """SND2 (mode, flags) or RCV2 (flags): as SEND and RECV, uncompressed."""
        flags = setup[-1]
        if flags & ~SYNC_FLAG_DRY_RUN or (ident == RCV2 and flags):
            self._fail("unsupported compression")
            self._end()
            return
        if ident == RCV2:
            self._recv(path)
            return
        self._dry_run = bool(flags & SYNC_FLAG_DRY_RUN)
        if self._dry_run:
            self._send_path = self.fs.normalize(path)
            self._draining = True
            return
        self._start_send(f"{path},{setup[0]}")

    # --- SEND -------------------------------------------------------------------------------------------

    def _start_send(self, spec: str) -> None:
        path, comma, mode_text = spec.rpartition(",")
        if not comma:
            self._fail("missing , in ID_SEND")
            self._end()
            return
        mode = _strtoul(mode_text)
        fs = self.fs
        path = fs.normalize(path)
        try:
            existing = fs.stat(path, self.cred, follow=False)
            replaced_link = stat_module.S_ISLNK(existing.mode) and not stat_module.S_ISLNK(mode)
            if stat_module.S_ISREG(existing.mode) or replaced_link:
                fs.unlink(path, self.cred)
        except OSError:
            pass
        self._send_path = path
        self._send_mode = mode
        if stat_module.S_ISLNK(mode):
            self._link_data = bytearray()
            return
        try:
            file = self._create(path, adbd_mode(mode))
        except OSError as exc:
            prefix = "secure_mkdirs failed" if getattr(exc, "mkdirs", False) else "couldn't create file"
            self._fail(f"{prefix}: {_strerror(exc)}")
            self._draining = True
            return
        self._sending = file

    def _create(self, path: str, mode: int) -> OpenFile:
        fs = self.fs
        try:
            file = fs.open(path, self.cred, read=False, write=True, create=True, exclusive=True, mode=mode)
        except OSError as exc:
            if exc.errno == errno.EEXIST:
                file = fs.open(path, self.cred, read=False, write=True, truncate=True)
            elif exc.errno == errno.ENOENT:
                parent = path.rsplit("/", 1)[0] or "/"
                try:
                    fs.mkdir(parent, self.cred, 0o775, parents=True)
                except OSError as mkdirs_error:
                    mkdirs_error.mkdirs = True  # type: ignore[attr-defined]
                    raise mkdirs_error from None
                file = fs.open(path, self.cred, read=False, write=True, create=True, exclusive=True, mode=mode)
            else:
                raise
        with contextlib.suppress(OSError):
            fs.chmod(path, mode, self.cred)  # adbd's fchmod after the open
        return file

    def _send_message(self, ident: bytes, word: int) -> bool:
        """One DATA or DONE of a SEND; False when more bytes are needed."""
        if ident == DONE:
            del self._buffer[: _HEADER.size]
            self._finish_send(word)
            return True
        if ident != DATA:
            del self._buffer[: _HEADER.size]
            if not self._draining:
                self._fail("invalid data message")
            self._abort_send()
            return True
        if word > SYNC_MAX_CHUNK:
            if not self._draining:
                self._fail("oversize data message")
            self._abort_send()
            return True
        if len(self._buffer) < _HEADER.size + word:
            return False
        chunk = bytes(self._buffer[_HEADER.size : _HEADER.size + word])
        del self._buffer[: _HEADER.size + word]
        if self._draining:
            return True
        if self._link_data is not None:
            self._link_data += chunk
        elif self._sending is not None:
            self._sending.write(chunk, PLAIN)
        return True

    def _abort_send(self) -> None:
        if self._sending is not None:
            with contextlib.suppress(OSError):
                self.fs.unlink(self._send_path, self.cred)
        self._sending = None
        self._link_data = None
        self._draining = False
        self._end()

    def _finish_send(self, mtime: int) -> None:
        if self._dry_run:  # the data was read and dropped: the push would have worked
            self._dry_run = self._draining = False
            self._reply(encode_sync(OKAY, 0))
            return
        if self._draining:
            self._draining = False
            self._end()
            return
        if self._link_data is not None:
            target = bytes(self._link_data).rstrip(b"\0").decode(errors="replace")
            self._link_data = None
            try:
                self.fs.symlink(target, self._send_path, self.cred)
            except OSError as exc:
                self._fail(f"symlink failed: {_strerror(exc)}")
                self._end()
                return
            self._reply(encode_sync(OKAY, 0))
            return
        self._sending = None
        with contextlib.suppress(OSError):
            self.fs.set_mtime(self._send_path, float(mtime), self.cred)
        self._reply(encode_sync(OKAY, 0))

    # --- RECV, STAT, LIST -----------------------------------------------------------------------------

    def _recv(self, path: str) -> None:
        try:
            if self.fs.stat(path, self.cred).is_dir:
                self._fail(f"read failed: {os.strerror(errno.EISDIR)}")
                self._end()
                return
            file = self.fs.open(path, self.cred)
            data = file.read(1 << 40, PLAIN, None) or b""
        except OSError as exc:
            self._fail(f"open failed: {_strerror(exc)}")
            self._end()
            return
        for start in range(0, len(data), RECV_CHUNK):
            self._reply(encode_sync(DATA, data[start : start + RECV_CHUNK]))
        self._reply(encode_sync(DONE, 0))

    def _lstat(self, path: str, follow: bool = False) -> StatResult:
        return self.fs.stat(path, self.cred, follow=follow)

    def _stat_v1(self, path: str) -> None:
        try:
            info = self._lstat(path)
            self._reply(STAT + struct.pack("<III", info.mode, info.size & 0xFFFFFFFF, info.mtime & 0xFFFFFFFF))
        except OSError:
            self._reply(STAT + struct.pack("<III", 0, 0, 0))

    @staticmethod
    def _v2_fields(info: StatResult | None, error: int) -> bytes:
        if info is None:
            return _V2.pack(error, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        return _V2.pack(0, 0xFD05, info.ino, info.mode, info.nlink, info.uid, info.gid, info.size,
                        info.mtime, info.mtime, info.mtime)

    def _stat_v2(self, ident: bytes, path: str) -> None:
        try:
            info = self._lstat(path, follow=ident == STA2)
            self._reply(ident + self._v2_fields(info, 0))
        except OSError as exc:
            self._reply(ident + self._v2_fields(None, exc.errno or errno.ENOENT))

    def _list(self, path: str, *, v2: bool) -> None:
        try:
            names = [".", "..", *self.fs.listdir(path, self.cred)]
        except OSError:
            names = []
        base = self.fs.normalize(path)
        for name in names:
            parent = base.rsplit("/", 1)[0] or "/"
            child = base if name == "." else parent if name == ".." else base.rstrip("/") + "/" + name
            try:
                info = self._lstat(child)
            except OSError:
                continue
            encoded = name.encode(errors="surrogateescape")
            if v2:
                self._reply(DNT2 + self._v2_fields(info, 0) + struct.pack("<I", len(encoded)) + encoded)
            else:
                entry = _DENT.pack(DENT, info.mode, info.size & 0xFFFFFFFF, info.mtime & 0xFFFFFFFF, len(encoded))
                self._reply(entry + encoded)
        if v2:
            self._reply(DONE + self._v2_fields(None, 0) + struct.pack("<I", 0))
        else:
            self._reply(_DENT.pack(DONE, 0, 0, 0, 0))

