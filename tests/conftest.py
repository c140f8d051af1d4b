"""Fixtures every kind of test shares (their code lives in tests/support, never imported from here)."""

from __future__ import annotations

import pytest

from tests.support.java_agent import build_classpath


@pytest.fixture(scope="session")
def classpath(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The Java agent and its host entry point, compiled once per session (xdist workers share it)."""
    return build_classpath(tmp_path_factory)
