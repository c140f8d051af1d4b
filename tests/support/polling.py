"""Waiting in tests for something another thread or process does: poll a condition until a deadline."""

from __future__ import annotations

import time
from collections.abc import Callable


def wait_until(condition: Callable[[], object], timeout: float = 3.0, interval: float = 0.02) -> bool:
    """Whether `condition()` became truthy within `timeout` seconds, checked every `interval`."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(interval)
    return True


def until(condition: Callable[[], object], timeout: float = 3.0, what: str = "the condition",
          interval: float = 0.02) -> None:
    """Wait as `wait_until` does; an AssertionError naming `what` when the time runs out."""
    assert wait_until(condition, timeout, interval), f"timed out after {timeout:g} s waiting for {what}"
