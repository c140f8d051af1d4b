from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.lab import Bench, bench


@pytest.fixture(scope="module")
def vd() -> Iterator[Bench]:
    """One virtual device per module (its state is checked, not assumed, by each test)."""
    with bench() as one:
        yield one
