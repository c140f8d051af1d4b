"""@pytest.mark.perf's limits: numbers only, by name (a did-you-mean for a misspelt one), and each
step's figures held to them, the failure naming the step, the figure and the limit."""

from __future__ import annotations

import pytest

from pytest_mobile_agent import errors
from pytest_mobile_agent.control.perf.budget import Budget


def test_limits_are_read_by_name() -> None:
    assert Budget.from_marker((), {"startup_ms": 800, "jank_percent": 5.5, "pss_mb": 120}) == Budget(800.0, 5.5, 120.0)
    assert Budget.from_marker((), {}).empty


@pytest.mark.parametrize(("kwargs", "named"), [
    ({"startup_ms": "fast"}, "startup_ms=...) takes a number of at least 0 (an app start's TotalTime"),
    ({"jank_percent": True}, "jank_percent=...) takes a number"),
    ({"pss_mb": -1}, "pss_mb=...) takes a number of at least 0"),
    ({"pss_mb": None}, "not None"),
])
def test_a_value_that_is_no_number_is_a_usage_error_naming_it(kwargs: dict[str, object], named: str) -> None:
    with pytest.raises(errors.InvalidArgument) as raised:
        Budget.from_marker((), kwargs)
    assert named in str(raised.value)


def test_an_unknown_limit_suggests_the_one_meant() -> None:
    with pytest.raises(errors.InvalidArgument, match="unknown limit 'jank_pct'; did you mean jank_percent"):
        Budget.from_marker((), {"jank_pct": 5})
    with pytest.raises(errors.InvalidArgument, match="the limits are startup_ms, jank_percent, pss_mb"):
        Budget.from_marker((), {"fps": 60})
    with pytest.raises(errors.InvalidArgument, match="by name"):
        Budget.from_marker((800,), {})


def test_a_step_over_a_limit_is_named_with_its_figure() -> None:
    budget = Budget(startup_ms=500, jank_percent=10, pss_mb=100)
    assert budget.exceeded("app.start (measured step 1)", {"startup_ms": 612.0, "pss_mb": 80.0}) == [
        "app.start (measured step 1): startup_ms 612 exceeds the budget of 500"]
    assert budget.exceeded("swipe", {"jank_percent": 10.0, "pss_mb": 100.0}) == []  # at the limit: within
    assert budget.exceeded("swipe", {"jank_percent": 40.0, "pss_mb": 100.5}) == [
        "swipe: jank_percent 40 exceeds the budget of 10", "swipe: pss_mb 100.5 exceeds the budget of 100"]


def test_a_start_am_did_not_time_cannot_meet_a_startup_budget() -> None:
    broken = Budget(startup_ms=500).exceeded("app.start", {"startup_ms": None})
    assert broken == ["app.start: startup_ms has no figure (the start was not timed by am) against a budget of 500"]
    assert Budget(pss_mb=1).exceeded("app.start", {"startup_ms": None}) == []
