from __future__ import annotations

from collections.abc import Iterator

import pytest

from pytest_mobile_agent.plugin.gates import HostGate
from tests.support.lab import Bench, bench


@pytest.fixture
def vd() -> Iterator[Bench]:
    """A fresh virtual device per fault test (faults leave devices in states no other test wants)."""
    with bench() as one:
        one.open("Login")
        yield one


@pytest.fixture
def gate() -> HostGate:
    """The faults' wall-clock bounds: timing gates, asserted only under MOBILE_AGENT_TIMING_GATES=on
    (a quiet machine); otherwise printed beside their bound while the test asserts the rest."""
    return HostGate.timing()
