"""What this host knows about the agents it started: socket, pid, token, versions and build per serial.

`Records()` keeps them in memory; `Records.in_dir(path, server=ADDRESS)` also in a directory, one
JSON file per target with mode 0600 (the token is a secret), written atomically (a temp file, then
os.replace), so a later process reuses the agent an earlier one left running. The file is named
after the adb server's address and the serial (`userfiles.target_key`): two devices both called
emulator-5554 on two servers never share a record. The plugin keeps them in the per-user cache
(`default_records_dir()`), so every checkout and project of one user reuses, or replaces, the same
agent. A corrupt or foreign file is no record and a logged warning, never a crash.

A record for a served virtual device (`Records.in_dir(..., virtual=True)`) also names the lab's adb
server (`virtual_lab`). A lab serves on a new port each time it starts, so its records would pile
up: `prune_gone_labs()`, run as a stack opens the records, removes those whose lab is gone (nothing
answers on its loopback address any more).
"""

from __future__ import annotations

import contextlib
import errno
import json
import logging
import os
import re
import socket
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_mobile_agent.errors import RecordsUnwritable, UnsafeDirectory
from pytest_mobile_agent.userfiles import (
    file_stem,
    private_dir,
    read_small_file,
    target_key,
    user_cache_dir,
)

log = logging.getLogger("pytest_mobile_agent.agent")

RECORD_KIND = "pytest-mobile-agent/agent-record"
RECORD_FORMAT = 1
VIRTUAL_LAB_KEY = "virtual_lab"  # beside a served virtual device's record: the address of its lab's adb server
_TOKEN_RE = re.compile(r"^[0-9a-f]{32}$")
_LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")


def default_records_dir() -> Path:
    """The per-user records: `<user cache>/records`."""
    return user_cache_dir() / "records"


@dataclass(frozen=True)
class Record:
    """An agent this host started on `serial`. `build` is None for a record written before builds
    were recorded, which makes the agent incompatible with every jar."""

    serial: str
    socket: str
    pid: int
    token: str = field(repr=False)
    version: str
    protocol: int
    build: str | None

    def to_json(self) -> dict[str, Any]:
        return {"kind": RECORD_KIND, "format": RECORD_FORMAT, "serial": self.serial, "socket": self.socket,
                "pid": self.pid, "token": self.token, "version": self.version, "protocol": self.protocol,
                "build": self.build}

    @classmethod
    def from_json(cls, obj: Any) -> Record:
        """ValueError when `obj` is not one of our records."""
        if not isinstance(obj, dict) or obj.get("kind") != RECORD_KIND:
            raise ValueError("not a pytest-mobile-agent agent record")
        values: dict[str, Any] = {
            key: obj.get(key) for key in ("serial", "socket", "pid", "token", "version", "protocol", "build")
        }
        for key in ("serial", "socket", "version"):
            if not isinstance(values[key], str):
                raise ValueError(f"`{key}` is not a string")
        for key in ("pid", "protocol"):
            if not isinstance(values[key], int) or isinstance(values[key], bool):
                raise ValueError(f"`{key}` is not an integer")
        if not isinstance(values["token"], str) or not _TOKEN_RE.match(values["token"]):
            raise ValueError("`token` is not 32 lowercase hex digits")
        if values["build"] is not None and not isinstance(values["build"], str):
            raise ValueError("`build` is neither a string nor null")
        return cls(**values)


class Records:
    """Records in memory, per serial. Thread-safe."""

    def __init__(self) -> None:
        self._records: dict[str, Record] = {}
        self._lock = threading.Lock()

    @classmethod
    def in_dir(cls, path: str | os.PathLike[str], *, server: str | None = None,
               virtual: bool = False) -> DirRecords:
        """Records in `path`, their files named after `server` (the adb server's address) and the
        serial; without a server, after the serial alone. `virtual`: the server is a virtual lab's,
        which its records name, so that they go once the lab is gone (`prune_gone_labs`)."""
        return DirRecords(Path(path), server, virtual=virtual)

    def get(self, serial: str) -> Record | None:
        with self._lock:
            return self._records.get(serial)

    def put(self, record: Record) -> None:
        with self._lock:
            self._records[record.serial] = record

    def check_writable(self, serial: str) -> None:
        """Raise RecordsUnwritable when `put` for the serial could not be kept (never, in memory)."""

    def forget(self, serial: str) -> None:
        with self._lock:
            self._records.pop(serial, None)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({sorted(self._records)})"


class DirRecords(Records):
    """Records that are also files in a directory: they outlive the process that wrote them."""

    def __init__(self, directory: Path, server: str | None = None, *, virtual: bool = False) -> None:
        super().__init__()
        self.directory = directory
        self.server = server
        self.virtual = virtual

    def path_for(self, serial: str) -> Path:
        stem = target_key(self.server, serial) if self.server else file_stem(serial)
        return self.directory / f"{stem}.json"

    def get(self, serial: str) -> Record | None:
        path = self.path_for(serial)
        try:
            text = read_small_file(path)  # decoded by json.loads below: bad bytes are a corrupt record
        except FileNotFoundError:
            return super().get(serial)
        except OSError as exc:
            log.warning("cannot read the agent record %s (%s); treating it as no record", path, exc.strerror)
            return None
        try:
            record = Record.from_json(json.loads(text))
        except (ValueError, TypeError, RecursionError) as exc:
            log.warning("the agent record %s is corrupt or not ours (%s); treating it as no record", path, exc)
            return None
        if record.serial != serial:
            log.warning("the agent record %s names another serial; treating it as no record", path)
            return None
        return record

    def put(self, record: Record) -> None:
        """The record, written atomically (0600); RecordsUnwritable naming the path when it cannot
        be, and then it is not kept in memory either."""
        path = self.path_for(record.serial)
        content = record.to_json()
        if self.virtual and self.server:
            content[VIRTUAL_LAB_KEY] = self.server
        try:
            self._write(path, json.dumps(content, indent=1).encode("utf-8"))
        except (OSError, UnsafeDirectory) as exc:
            raise _unwritable(path, exc) from None
        super().put(record)

    def check_writable(self, serial: str) -> None:
        """A record for the serial can be written: the directory is ours and takes a file, and the
        record's own path is no directory (checked before an agent is launched for it)."""
        path = self.path_for(serial)
        try:
            private_dir(self.directory)
            if path.is_dir() and not path.is_symlink():
                raise IsADirectoryError(errno.EISDIR, "a directory is where the record goes", str(path))
            fd, probe = tempfile.mkstemp(dir=self.directory, prefix=".record-", suffix=".probe")
            os.close(fd)
            os.unlink(probe)
        except (OSError, UnsafeDirectory) as exc:
            raise _unwritable(path, exc) from None

    def _write(self, path: Path, data: bytes) -> None:
        private_dir(self.directory)
        fd, temp = tempfile.mkstemp(dir=self.directory, prefix=".record-", suffix=".tmp")
        try:
            os.fchmod(fd, 0o600)
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(temp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temp)
            raise

    def forget(self, serial: str) -> None:
        super().forget(serial)
        with contextlib.suppress(FileNotFoundError):
            self.path_for(serial).unlink()

    def prune_gone_labs(self, answers: Callable[[str], bool] | None = None) -> list[Path]:
        """Remove the records of served virtual devices whose lab is gone: `answers(address)` is
        False (default: a TCP connect to the lab's loopback address is refused). Records of real
        devices, and labs on other hosts, are kept. The removed files, for the log and the tests."""
        answers = answers or _answers
        removed = []
        for path in sorted(self.directory.glob("*.json")):
            lab = _virtual_lab_of(path)
            if lab is not None and not answers(lab):
                with contextlib.suppress(FileNotFoundError):
                    path.unlink()
                    removed.append(path)
                    log.info("the virtual lab %s is gone: removed its agent record %s", lab, path)
        return removed

    def __repr__(self) -> str:
        return f"DirRecords({str(self.directory)!r}, server={self.server!r})"


def _virtual_lab_of(path: Path) -> str | None:
    """The loopback address of the lab a record file names, or None (a real device's, a foreign
    or unreadable file, a lab on another host)."""
    try:
        content = json.loads(read_small_file(path))
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(content, dict) or content.get("kind") != RECORD_KIND:
        return None
    lab = content.get(VIRTUAL_LAB_KEY)
    if not isinstance(lab, str):
        return None
    host, _, port = lab.rpartition(":")
    return lab if host.strip("[]") in _LOOPBACK_HOSTS and port.isdigit() else None


def _answers(address: str) -> bool:
    """Whether something accepts a TCP connection at `address` (HOST:PORT) within half a second;
    only a refusal counts as nothing (a timeout may be a busy host)."""
    host, _, port = address.rpartition(":")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=0.5):
            return True
    except ConnectionRefusedError:
        return False
    except OSError:
        return True


def _unwritable(path: Path, exc: BaseException) -> RecordsUnwritable:
    reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
    return RecordsUnwritable(
        f"the agent record {path} cannot be written: {reason}",
        advice="Make the records directory writable (or remove what is in the record's place), or name "
               "another one with --agent-records=DIR / MOBILE_AGENT_RECORDS",
    )
