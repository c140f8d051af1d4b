"""The emulator's discovery files (pid_<pid>.ini) as the emulator client's tests write them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from pytest_mobile_agent.emulator.discovery import DISCOVERY_DIR_ENV

WriteFile = Callable[..., Path]
"""The `write_discovery` fixture: `write(pid=None, *, mtime=None, raw=None, **keys) -> Path`."""


def empty_discovery_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A new directory under `tmp_path`, made the one the emulator client reads discovery files from."""
    directory = tmp_path / "avd" / "running"
    directory.mkdir(parents=True)
    monkeypatch.setenv(DISCOVERY_DIR_ENV, str(directory))
    return directory


def token_mode(console: int = 5554, grpc_port: int = 8554, token: str = "t" * 64) -> dict[str, str]:
    """The keys an emulator started with `-grpc PORT -grpc-use-token` writes (underscores for dots)."""
    return {
        "port_serial": str(console),
        "port_adb": str(console + 1),
        "grpc_port": str(grpc_port),
        "grpc_token": token,
        "avd_name": "Pixel 7 API 36",
        "avd_id": "Pixel_7_API_36",
    }
