"""Fixtures every kind of test shares (their code lives in tests/support, never imported from here)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.support.discovery_files import empty_discovery_dir
from tests.support.inner_runs import INNER_RUNS_SKIP
from tests.support.java_agent import build_classpath


@pytest.fixture(scope="session")
def classpath(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The Java agent and its host entry point, compiled once per session (xdist workers share it)."""
    return build_classpath(tmp_path_factory)


@pytest.fixture
def discovery_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty directory the emulator client reads discovery files from (the emulator client's tests,
    the controller double's)."""
    return empty_discovery_dir(tmp_path, monkeypatch)


@pytest.fixture(autouse=True)
def _inner_runs_without_unused_plugins(request: pytest.FixtureRequest) -> None:
    """A pytester test's inner runs load no plugin they never use (pytester clears PYTEST_ADDOPTS as
    it starts, so this is set after it)."""
    if "pytester" not in request.fixturenames:
        return
    request.getfixturevalue("pytester")
    monkeypatch = request.getfixturevalue("monkeypatch")
    monkeypatch.setenv("PYTEST_ADDOPTS", " ".join([os.environ.get("PYTEST_ADDOPTS", ""), *INNER_RUNS_SKIP]).strip())
