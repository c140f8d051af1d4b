"""Fixtures every kind of test shares (their code lives in tests/support, never imported from here)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.discovery_files import empty_discovery_dir
from tests.support.java_agent import build_classpath


@pytest.fixture(scope="session")
def classpath(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The Java agent and its host entry point, compiled once per session: their class path."""
    return build_classpath(tmp_path_factory)


@pytest.fixture
def discovery_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty directory the emulator client reads discovery files from (the emulator client's tests,
    the controller double's)."""
    return empty_discovery_dir(tmp_path, monkeypatch)
