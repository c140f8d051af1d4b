"""When the status bar clock shows a new minute (ui/status_clock.py), on the times it is given (no
clock of its own: as tests/unit/mirror/test_freshness.py tests the mirror's freshness policy)."""

from __future__ import annotations

import pytest

from pytest_mobile_agent.virtual.ui.status_clock import StatusClock

MIDNIGHT = 1_767_225_600.0  # 2026-01-01 00:00:00 UTC


def test_the_clock_shows_its_minute_and_tells_only_when_a_new_one_begins() -> None:
    clock = StatusClock(MIDNIGHT + 59.0)
    assert clock.text == "00:00"
    assert clock.tick(MIDNIGHT + 59.999) is None
    assert clock.tick(MIDNIGHT + 60.0) == "00:01" and clock.text == "00:01"
    assert clock.tick(MIDNIGHT + 61.0) is None, "told once a minute"
    assert clock.tick(MIDNIGHT + 3600.0 * 13 + 5) == "13:00"


def test_the_next_minute_falls_due_at_its_start_in_model_time() -> None:
    assert StatusClock.next_minute_ms(5000.0, MIDNIGHT + 45.5) == pytest.approx(5000.0 + 14_500.0)
    assert StatusClock.next_minute_ms(5000.0, MIDNIGHT) == pytest.approx(5000.0 + 60_000.0), \
        "at a minute's start: the one after"
