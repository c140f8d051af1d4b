"""The automation lock: one OS-level file lock per target (its adb server's address and its serial),
shared by every pytest process and xdist worker on this host, held while a test uses the agent, the
session or the screen.

A device has one UI-automation slot; two workers automating it at once would take it from each
other. The lock is a `filelock.FileLock` (an flock on POSIX), never a soft lock, so a crashed holder
releases it. Beside the lock file, `<serial>.holder` names the current holder (pid and test id), so
a waiting worker can say whom it waits for.
"""

from __future__ import annotations

import getpass
import json
import logging
import os
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import filelock

from pytest_mobile_agent.errors import Timeout, UnsafeDirectory
from pytest_mobile_agent.userfiles import file_stem, private_dir, read_small_file, target_key

log = logging.getLogger("pytest_mobile_agent.automation_lock")

LOCK_DIR_ENV = "MOBILE_AGENT_LOCK_DIR"
FIRST_REPORT = 1.0  # seconds of waiting before the first progress line
REPORT_EVERY = 10.0  # then one line every this many seconds
DEFAULT_LOCK_WAIT = 900.0
"""Seconds to wait for another holder of a target's automation lock (a test run, a worker, the inspector)."""


def default_lock_dir() -> Path:
    """A per-user directory all workers on this host share (mode 0700)."""
    configured = os.environ.get(LOCK_DIR_ENV)
    if configured:
        return Path(configured)
    uid = os.getuid() if hasattr(os, "getuid") else getpass.getuser()
    return Path(tempfile.gettempdir()) / f"pytest-mobile-agent-{uid}" / "locks"


class AutomationLock:
    """`with AutomationLock(serial).held(test_id, timeout):` serialises UI automation on a serial."""

    def __init__(self, serial: str, directory: Path | None = None, *, server: str | None = None) -> None:
        """`server`: the adb server's address; the lock is then keyed by it and the serial
        (userfiles.target_key), so two `emulator-5554` on two servers never share a lock."""
        self.serial = serial
        self.target = f"{serial} on {server}" if server else serial
        if directory is None:
            directory = default_lock_dir()
            if LOCK_DIR_ENV not in os.environ:  # in the shared temp dir: its per-user parent must be ours too
                private_dir(directory.parent)
        self.directory = private_dir(directory)
        stem = target_key(server, serial) if server else file_stem(serial)
        self.lock_path = self.directory / f"{stem}.lock"
        self.holder_path = self.directory / f"{stem}.holder"
        self._lock = filelock.FileLock(str(self.lock_path))

    def holder(self) -> dict[str, object] | None:
        """The last holder written beside the lock, or None."""
        try:
            data = json.loads(read_small_file(self.holder_path))
        except (OSError, ValueError):
            return None
        return data if isinstance(data, dict) else None

    def describe_holder(self) -> str:
        holder = self.holder()
        if not holder:
            return "an unknown holder"
        since = holder.get("since")
        held = f" for {max(0.0, time.time() - since):.0f} s" if isinstance(since, (int, float)) else ""
        return f"pid {holder.get('pid')} ({holder.get('test')}){held}"

    @contextmanager
    def held(
        self,
        test_id: str,
        timeout: float,
        on_wait: Callable[[str], None] | None = None,
        poll: float = 0.05,
    ) -> Iterator[float]:
        """Hold the lock for the block; yields the seconds spent waiting for it."""
        started = time.monotonic()
        waited = self._acquire(test_id, timeout, on_wait, poll)
        try:
            self._write_holder(test_id)
            yield waited
        finally:
            with suppress(OSError):
                self.holder_path.unlink()
            self._lock.release()
            log.debug("released the automation lock on %s after %.3f s", self.target, time.monotonic() - started)

    def remove_if_free(self) -> bool:
        """Remove the lock file when no one holds the lock (a virtual lab's, as the lab ends: its
        address is never used again, so its lock file would only pile up); True when removed.

        The file is unlinked while we hold its flock. A waiter that opened it before finds, once it
        gets the flock, that the file has no name left and opens the path again (filelock 3.21 and
        later check st_nlink after flock), so it never holds a lock on a file no one else can see."""
        try:
            self._lock.acquire(timeout=0)
        except filelock.Timeout:
            return False
        try:
            with suppress(FileNotFoundError):
                self.lock_path.unlink()
            return True
        finally:
            self._lock.release()

    def _write_holder(self, test_id: str) -> None:
        # O_NOFOLLOW: a holder path planted as a symlink must fail, never overwrite the file it names.
        try:
            fd = os.open(self.holder_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0), 0o600)
        except OSError as error:
            raise UnsafeDirectory(
                f"cannot write the lock's holder file {self.holder_path}: {error.strerror}",
                advice=f"Remove it (rm {self.holder_path}); nobody but you should write in {self.directory}",
            ) from error
        with os.fdopen(fd, "w") as holder:
            holder.write(json.dumps({"pid": os.getpid(), "test": test_id, "since": time.time()}))

    def _acquire(self, test_id: str, timeout: float, on_wait: Callable[[str], None] | None, poll: float) -> float:
        started = time.monotonic()
        next_report = FIRST_REPORT
        while True:
            try:
                self._lock.acquire(timeout=poll)
            except filelock.Timeout:
                pass
            else:
                waited = time.monotonic() - started
                if next_report > FIRST_REPORT and on_wait:  # it was announced: say how it ended
                    on_wait(f"got the automation lock on {self.target} after {waited:.1f} s")
                return waited
            waited = time.monotonic() - started
            if waited >= next_report:
                message = (f"waiting for the automation lock on {self.target}, held by {self.describe_holder()}; "
                           f"waited {waited:.0f} s of {timeout:g} s")
                log.info("%s: %s", test_id, message)
                if on_wait:
                    on_wait(message)
                next_report = waited - waited % REPORT_EVERY + REPORT_EVERY if waited >= REPORT_EVERY else REPORT_EVERY
            if waited >= timeout:
                raise Timeout(
                    f"waiting for the automation lock on {self.target} (held by {self.describe_holder()})",
                    timeout,
                )
