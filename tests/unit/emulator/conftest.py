"""Fixtures of the emulator client's unit tests: a discovery directory and discovery files."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from pytest_mobile_agent.emulator.discovery import DISCOVERY_DIR_ENV


@pytest.fixture
def discovery_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    directory = tmp_path / "avd" / "running"
    directory.mkdir(parents=True)
    monkeypatch.setenv(DISCOVERY_DIR_ENV, str(directory))
    return directory


@pytest.fixture(scope="session")
def dead_pid() -> int:
    """The pid of a process that has exited."""
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait(timeout=10)
    return proc.pid


WriteFile = Callable[..., Path]


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


def token_mode(console: int = 5554, grpc_port: int = 8554, token: str = "t" * 64) -> dict[str, str]:
    return {
        "port_serial": str(console),
        "port_adb": str(console + 1),
        "grpc_port": str(grpc_port),
        "grpc_token": token,
        "avd_name": "Pixel 7 API 36",
        "avd_id": "Pixel_7_API_36",
    }
