"""Every call a test makes on the screen, its elements and the app is a step (mirror/steps.py):
listeners see it start and end with its arguments, target, outcome and a wait's polls; guards run
before the test's own calls only, outside any step."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from pytest_mobile_agent import errors
from pytest_mobile_agent.control.app_under_test import AppUnderTest
from pytest_mobile_agent.mirror import steps as steps_module
from pytest_mobile_agent.mirror.mirror import Mirror
from pytest_mobile_agent.mirror.steps import Source, Step, Steps
from pytest_mobile_agent.session.backends import Ack
from tests.support.mirror_fakes import Rig, login_screen
from tests.support.step_recorder import StepRecorder


def recorded(rig: Rig) -> StepRecorder:
    recorder = StepRecorder()
    rig.mirror.steps.add_listener(recorder)
    return recorder


def test_a_tap_by_criteria_is_one_step_with_its_arguments_target_and_ack_and_the_actionable_wait_nested_in_it(
) -> None:
    rig = Rig(login_screen())
    recorder = recorded(rig)
    ack = rig.mirror.tap(text="Login")
    assert recorder.names() == [("actionable", 1), ("tap", 0)]
    wait = recorder.ended[0]
    assert wait.ended_by == "matched" and wait.polls and wait.polls[-1].matched
    tap = recorder.ended[-1]
    assert tap.arguments == {"text": "Login"}  # what the test passed, defaults left out
    assert tap.target == (0, 210, 360, 336)
    assert tap.result is ack and isinstance(ack, Ack)
    assert tap.ended_by == "returned" and tap.error is None
    assert tap.ended_at is not None and tap.seconds is not None and tap.seconds >= 0


def test_an_elements_tap_is_a_step_around_the_screens() -> None:
    rig = Rig(login_screen())
    button = rig.mirror.find(desc="Sign in")
    recorder = recorded(rig)
    button.tap()
    assert recorder.names() == [("actionable", 2), ("tap", 1), ("element.tap", 0)]
    assert recorder.ended[-1].target == (60, 700, 1020, 840)


def test_each_step_records_the_tests_file_and_line_and_nested_steps_their_callers() -> None:
    """Issue 41 item 15: steps carried no source line, so the trace could not say where the test was."""
    rig = Rig(login_screen())
    button = rig.mirror.find(desc="Sign in")
    recorder = recorded(rig)
    line = inspect.currentframe().f_lineno + 1  # type: ignore[union-attr]
    button.tap()
    assert [step.source for step in recorder.ended] == [Source(__file__, line)] * 3
    assert str(recorder.ended[-1].source) == f"{__file__}:{line}"


def test_a_call_that_a_fixture_makes_from_pytests_frames_has_no_source_line() -> None:
    """The app's stop at teardown: the plugin's code called by pytest's, no line of the test."""
    steps = Steps()
    finished: list[Step] = []
    in_the_plugin = str(Path(steps_module.__file__).parent.parent / "plugin" / "fixtures.py")
    in_pytest = str(Path(pytest.__file__).parent.parent / "_pytest" / "runner.py")
    namespace = {"steps": steps, "finished": finished}
    exec(compile("def stop():\n    with steps.step('app.stop') as step:\n        finished.append(step)\n",
                 in_the_plugin, "exec"), namespace)
    exec(compile("stop()", in_pytest, "exec"), namespace)
    assert finished[0].source is None


def test_a_wait_records_its_polls_and_what_ended_it() -> None:
    rig = Rig(login_screen())
    recorder = recorded(rig)
    rig.events.at(1.5, _changed())
    rig.tree.screen = login_screen(welcome=True)
    found = rig.mirror.wait_for(text="Welcome, ada", timeout=5)
    wait = recorder.ended[-1]
    assert wait.name == "wait_for" and wait.result == found
    assert wait.ended_by == "matched"
    assert wait.polls and wait.polls[-1].matched


def test_a_wait_that_times_out_says_so_and_keeps_the_error() -> None:
    rig = Rig(login_screen())
    recorder = recorded(rig)
    with pytest.raises(errors.WaitTimeout):
        rig.mirror.wait_for(text="Nowhere", timeout=2)
    wait = recorder.ended[-1]
    assert wait.ended_by == "timeout"
    assert isinstance(wait.error, errors.WaitTimeout)
    assert wait.polls and not any(poll.matched for poll in wait.polls)


def test_a_failed_call_ends_its_step_with_the_errors_name() -> None:
    rig = Rig(login_screen())
    recorder = recorded(rig)
    with pytest.raises(errors.NoMatch):
        rig.mirror.find(text="Nowhere")
    assert recorder.ended[-1].ended_by == "NoMatch"


def test_guards_run_before_the_tests_own_calls_only_and_their_own_calls_run_unguarded() -> None:
    rig = Rig(login_screen())
    recorder = recorded(rig)
    seen: list[str] = []

    def guard(name: str) -> None:
        seen.append(name)
        if name == "tap":
            rig.mirror.find(text="Big")  # a watcher's own call: a step of its own, not guarded again

    rig.mirror.steps.add_guard(guard)
    rig.mirror.tap(text="Login")
    assert seen == ["tap"]  # not the wait nested in the tap, nor the guard's own find
    assert recorder.names() == [("find", 0), ("actionable", 1), ("tap", 0)]


def test_a_guard_that_raises_fails_the_call_it_ran_before() -> None:
    rig = Rig(login_screen())

    def guard(name: str) -> None:
        raise errors.MobileAgentError("the watcher 'allow' failed")

    rig.mirror.steps.add_guard(guard)
    with pytest.raises(errors.MobileAgentError, match="watcher"):
        rig.mirror.tap(text="Login")
    assert rig.input.calls == []


def test_a_listener_that_raises_never_fails_the_test() -> None:
    rig = Rig(login_screen())

    class Broken:
        def step_started(self, step: Step) -> None:
            raise RuntimeError("a full disk")

        def step_ended(self, step: Step) -> None:
            raise RuntimeError("a full disk")

    rig.mirror.steps.add_listener(Broken())
    assert rig.mirror.tap(text="Login").accepted


def test_removing_a_listener_stops_its_notifications() -> None:
    rig = Rig(login_screen())
    recorder = StepRecorder()
    remove = rig.mirror.steps.add_listener(recorder)
    rig.mirror.exists(text="Login")
    remove()
    rig.mirror.exists(text="Login")
    assert len(recorder.ended) == 1


def test_the_app_handles_calls_are_steps_of_the_steps_it_was_given() -> None:
    steps = Steps()
    recorder = StepRecorder()
    steps.add_listener(recorder)

    class Device:
        def force_stop(self, package: str) -> None:
            pass

    app = AppUnderTest(Device(), "dev.app", ".Main", steps=steps)  # type: ignore[arg-type]
    app.stop()
    assert recorder.names() == [("app.stop", 0)]


def test_recording_keeps_the_signatures_an_ide_shows() -> None:
    assert list(inspect.signature(Mirror.tap).parameters) == ["self", "element", "timeout", "criteria"]
    assert Mirror.wait_for.__doc__ and "timeout" in inspect.signature(Mirror.wait_for).parameters


def _changed() -> object:
    from pytest_mobile_agent.session.backends import ProtocolEvent

    return ProtocolEvent(seq=1, name="window_changed", data={"window": 12}, received_at=1.5)
