"""The automation lock: one OS-level file lock per serial, shared by every pytest process and
xdist worker on this host, held while a test uses the agent, the session or the screen.

A device has one UI-automation slot; two workers automating it at once would take it from each
other. The lock is a `filelock.FileLock` (an flock on POSIX), never a soft lock, so a crashed holder
releases it. Beside the lock file, `<serial>.holder` names the current holder (pid and test id), so
a waiting worker can say whom it waits for.
"""

from __future__ import annotations

import getpass
import hashlib
import json
import logging
import os
import re
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import filelock

from .errors import Timeout, UnsafeDirectory
from .userfiles import private_dir

log = logging.getLogger("pytest_mobile_agent.lock")

LOCK_DIR_ENV = "MOBILE_AGENT_LOCK_DIR"


def default_lock_dir() -> Path:
    """A per-user directory all workers on this host share (mode 0700)."""
    configured = os.environ.get(LOCK_DIR_ENV)
    if configured:
        return Path(configured)
    uid = os.getuid() if hasattr(os, "getuid") else getpass.getuser()
    return Path(tempfile.gettempdir()) / f"pytest-mobile-agent-{uid}" / "locks"


def _file_stem(serial: str) -> str:
    stem = re.sub(r"[^A-Za-z0-9._-]", "_", serial) or "_"
    if len(stem) > 200:  # a file name is at most 255 bytes: keep a prefix and a digest of the serial
        stem = f"{stem[:183]}-{hashlib.sha256(serial.encode('utf-8', 'surrogatepass')).hexdigest()[:16]}"
    return stem


class AutomationLock:
    """`with AutomationLock(serial).held(test_id, timeout):` serialises UI automation on a serial."""

    def __init__(self, serial: str, directory: Path | None = None) -> None:
        self.serial = serial
        if directory is None:
            directory = default_lock_dir()
            if LOCK_DIR_ENV not in os.environ:  # in the shared temp dir: its per-user parent must be ours too
                private_dir(directory.parent)
        self.directory = private_dir(directory)
        stem = _file_stem(serial)
        self.lock_path = self.directory / f"{stem}.lock"
        self.holder_path = self.directory / f"{stem}.holder"
        self._lock = filelock.FileLock(str(self.lock_path))

    def holder(self) -> dict[str, object] | None:
        """The last holder written beside the lock, or None."""
        try:
            data = json.loads(self.holder_path.read_text())
        except (OSError, ValueError):
            return None
        return data if isinstance(data, dict) else None

    def describe_holder(self) -> str:
        holder = self.holder()
        if not holder:
            return "an unknown holder"
        return f"pid {holder.get('pid')} ({holder.get('test')})"

    @contextmanager
    def held(
        self,
        test_id: str,
        timeout: float,
        on_wait: Callable[[str], None] | None = None,
        poll: float = 0.05,
        progress_every: float = 10.0,
    ) -> Iterator[float]:
        """Hold the lock for the block; yields the seconds spent waiting for it. A wait past a
        second is told to `on_wait` (whom it waits for), then every `progress_every` seconds (for
        how long), and when it took the lock."""
        started = time.monotonic()
        waited = self._acquire(test_id, timeout, _Progress(test_id, self, on_wait, progress_every), poll)
        try:
            self._write_holder(test_id)
            yield waited
        finally:
            with suppress(OSError):
                self.holder_path.unlink()
            self._lock.release()
            log.debug("released the automation lock on %s after %.3f s", self.serial, time.monotonic() - started)

    def _write_holder(self, test_id: str) -> None:
        # O_NOFOLLOW: a holder path planted as a symlink must fail, never overwrite the file it names.
        try:
            fd = os.open(self.holder_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0), 0o600)
        except OSError as error:
            raise UnsafeDirectory(f"cannot write the lock's holder file {self.holder_path}: {error.strerror}",
                                  advice=f"Remove it (rm {self.holder_path}); nobody but you should write in {self.directory}") from error
        with os.fdopen(fd, "w") as holder:
            holder.write(json.dumps({"pid": os.getpid(), "test": test_id, "since": time.time()}))

    def _acquire(self, test_id: str, timeout: float, progress: _Progress, poll: float) -> float:
        started = time.monotonic()
        while True:
            try:
                self._lock.acquire(timeout=poll)
            except filelock.Timeout:
                pass
            else:
                progress.took(time.monotonic() - started)
                return time.monotonic() - started
            waited = time.monotonic() - started
            progress.waiting(waited)
            if waited >= timeout:
                raise Timeout(
                    f"waiting for the automation lock on {self.serial} (held by {self.describe_holder()})",
                    timeout,
                )


class _Progress:
    """The lines a lock wait says: whom it waits for (after a second), for how long (every
    `every` seconds), and when it took the lock."""

    def __init__(self, test_id: str, lock: AutomationLock, on_wait: Callable[[str], None] | None, every: float) -> None:
        self.test_id, self.lock, self.on_wait, self.every = test_id, lock, on_wait, every
        self.said_at: float | None = None

    def waiting(self, waited: float) -> None:
        if self.said_at is None and waited >= 1.0:
            self._say(f"waits for the automation lock on {self.lock.serial}, held by {self.lock.describe_holder()}", waited)
        elif self.said_at is not None and waited - self.said_at >= self.every:
            self._say(f"has waited {waited:.0f} s for the automation lock on {self.lock.serial}, held by "
                      f"{self.lock.describe_holder()}", waited)

    def took(self, waited: float) -> None:
        if self.said_at is not None:
            self._say(f"took the automation lock on {self.lock.serial} after {waited:.1f} s", waited)

    def _say(self, message: str, waited: float) -> None:
        self.said_at = waited
        message = f"{self.test_id} {message}"
        log.info(message)
        if self.on_wait:
            self.on_wait(message)
