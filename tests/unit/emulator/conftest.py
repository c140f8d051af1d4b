"""Fixtures of the emulator client's unit tests: discovery files (in tests/conftest.py's discovery_dir)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.discovery_files import WriteFile


@pytest.fixture(scope="session")
def dead_pid() -> int:
    """The pid of a process that has exited."""
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait(timeout=10)
    return proc.pid


@pytest.fixture
def write_discovery(discovery_dir: Path) -> WriteFile:
    """Writes pid_<pid>.ini (default: this process) with the given keys, and an mtime."""

    def write(pid: int | None = None, *, mtime: float | None = None, raw: bytes | None = None, **props: str) -> Path:
        pid = os.getpid() if pid is None else pid
        path = discovery_dir / f"pid_{pid}.ini"
        body = raw if raw is not None else "".join(f"{k.replace('_', '.')}={v}\n" for k, v in props.items()).encode()
        path.write_bytes(body)
        if mtime is not None:
            os.utime(path, (mtime, mtime))
        return path

    return write
