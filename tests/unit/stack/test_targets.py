"""The "did you mean" of a target name that is not a real one (stack.targets.did_you_mean)."""

from __future__ import annotations

import pytest

from pytest_mobile_agent.stack.targets import did_you_mean


@pytest.mark.parametrize(("name", "listed", "meant"), [
    ("virtaul", [], "virtual"),
    ("virutal", ["emulator-5554"], "virtual"),
    ("emulatr-5554", ["emulator-5554", "emulator-5556"], "emulator-5554"),
    ("emulator-5566", ["emulator-5556"], "emulator-5556"),
    ("atuo", [], "auto"),
    ("R58M123ABC", ["R58M123ABD"], "R58M123ABD"),
])
def test_a_name_close_to_a_real_one_is_suggested(name: str, listed: list[str], meant: str) -> None:
    assert did_you_mean(name, listed) == meant


@pytest.mark.parametrize(("name", "listed"), [("pixel-7", ["emulator-5554"]), ("emulator-5554", ["emulator-5554"]),
                                              ("x", [])])
def test_a_name_close_to_none_or_equal_to_one_gets_no_suggestion(name: str, listed: list[str]) -> None:
    assert did_you_mean(name, listed) is None
