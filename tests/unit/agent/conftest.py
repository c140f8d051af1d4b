"""Fixtures of the agent's unit tests that build or bundle a jar: a copy of the agent's sources, a
fake SDK and JDK with the user cache in a temp dir, and no bundled jar unless a test stages one."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pytest_mobile_agent.agent import bundled
from pytest_mobile_agent.agent.builder import AgentSources
from tests.support.fake_sdk import make_jdk, make_sdk

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture
def sources(tmp_path: Path) -> AgentSources:
    """A copy of agent-android/ the test may change."""
    copy = tmp_path / "agent-android"
    shutil.copytree(REPO / "agent-android", copy, ignore=shutil.ignore_patterns("build", "dist", "test", "host"))
    return AgentSources.at(copy)


@pytest.fixture
def toolchain(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """A fake SDK in ANDROID_HOME, a fake JDK in JAVA_HOME, and the user cache in a temp dir."""
    sdk = make_sdk(tmp_path / "sdk")
    jdk = make_jdk(tmp_path / "jdk")
    monkeypatch.setenv("ANDROID_HOME", str(sdk))
    monkeypatch.delenv("ANDROID_SDK_ROOT", raising=False)
    monkeypatch.setenv("JAVA_HOME", str(jdk))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return sdk, jdk


@pytest.fixture
def bundle_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The package's `prebuilt/` moved to an empty temp dir, so that a jar a developer staged in
    this checkout plays no part, and a test stages its own there."""
    directory = tmp_path / "prebuilt"
    monkeypatch.setattr(bundled, "BUNDLE_DIR", directory)
    return directory
