"""The fronts' fixture: a scripted device behind them (tests/support/scripted_device.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.scripted_device import ScriptedDevice


@pytest.fixture
def scripted_device() -> Iterator[ScriptedDevice]:
    yield ScriptedDevice()
