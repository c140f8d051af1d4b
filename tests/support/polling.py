"""Waiting in tests for something another thread does."""

from __future__ import annotations

import time
from collections.abc import Callable

POLL_INTERVAL = 0.01


def wait_until(condition: Callable[[], object], timeout: float = 2.0, interval: float = POLL_INTERVAL) -> bool:
    """Whether `condition()` became true within `timeout` seconds (asked every `interval`, and once
    more at the end)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(interval)
    return bool(condition())
