"""The journal of a test's changes: each thing put back as the test found it, the last change first,
and a change of several steps undone whole when a step fails."""

from __future__ import annotations

import pytest

from pytest_mobile_agent.control.journal import Journal
from pytest_mobile_agent.errors import MobileAgentError, StateRefused


def test_each_thing_is_put_back_once_as_found_and_the_last_change_first() -> None:
    done: list[str] = []
    journal = Journal()
    journal.remember("rotation", lambda: done.append("rotation as found"))
    journal.remember("battery", lambda: done.append("battery"))
    journal.remember("rotation", lambda: done.append("rotation as the first change left it"))
    assert journal.keys == ["rotation", "battery"]
    assert journal.restore() == []
    assert done == ["battery", "rotation as found"]
    assert journal.keys == [] and journal.restore() == []


def test_a_failing_step_undoes_the_steps_of_its_change_and_only_those() -> None:
    done: list[str] = []
    journal = Journal()
    journal.remember("earlier", lambda: done.append("earlier"))
    with pytest.raises(StateRefused), journal.change():
        journal.remember("data", lambda: done.append("data back on"))
        journal.remember("wifi", lambda: done.append("wifi back on"))
        raise StateRefused("wifi refused")
    assert done == ["wifi back on", "data back on"]
    assert journal.keys == ["earlier"]


def test_a_change_that_ends_well_keeps_its_steps_for_the_end_of_the_test() -> None:
    journal = Journal()
    with journal.change():
        journal.remember("a", lambda: None)
        with journal.change():
            journal.remember("b", lambda: None)
        assert journal.knows("b")
    assert journal.keys == ["a", "b"]


def test_an_undo_that_fails_is_reported_and_the_others_still_run() -> None:
    done: list[str] = []
    journal = Journal()
    journal.remember("first", lambda: done.append("first"))

    def refuse() -> None:
        raise MobileAgentError("the device is gone")

    journal.remember("second", refuse)
    assert journal.restore() == ["second: the device is gone"]
    assert done == ["first"]
