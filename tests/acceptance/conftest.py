"""Fixtures of the acceptance tests that run an app team's suite: the project, and a device that
does not say it is virtual."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_mobile_agent.virtual import VirtualLab
from tests.acceptance.support import write_project


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """An app team's project: one test file and the app's APK (the fixture app, versionCode 2)."""
    return write_project(tmp_path / "app-project")


@pytest.fixture
def unmarked_device() -> Iterator[VirtualLab]:
    """A virtual device served from this process that does not say it is virtual, as a real one
    would not: the plugin must deploy a real build of the agent to it."""
    from pytest_mobile_agent.adb.wire import VIRTUAL_DEVICE_PROPERTY

    lab = VirtualLab.start(1)
    lab.device(lab.serials[0]).properties.pop(VIRTUAL_DEVICE_PROPERTY)
    try:
        yield lab
    finally:
        lab.stop()
