"""The per-step audit's own decisions (plugin/accessibility.py), apart from a device: which steps are
audited, that a finding is reported once, that an unreadable screenshot leaves contrast unmeasured
rather than failing the test, and that `fail` raises at a new error."""

from __future__ import annotations

from typing import cast

import numpy as np
import pytest

from pytest_mobile_agent.emulator.controller import Controller
from pytest_mobile_agent.emulator.frame import Frame
from pytest_mobile_agent.errors import AgentError
from pytest_mobile_agent.mirror import Mirror
from pytest_mobile_agent.mirror.replica import View
from pytest_mobile_agent.mirror.steps import Step
from pytest_mobile_agent.plugin.accessibility import FAIL, REPORT, AccessibilityFailure, StepAudits
from tests.unit.mirror.a11y.test_rules import node, root, view_of


class FakeScreen:
    def __init__(self, view: View, shot_error: Exception | None = None) -> None:
        self.view, self.shot_error, self.shots = view, shot_error, 0

    def snapshot(self) -> View:
        return self.view

    def screenshot_png(self) -> bytes:
        self.shots += 1
        if self.shot_error is not None:
            raise self.shot_error
        raise AssertionError("no screenshot expected")


def step(name: str, depth: int = 0) -> Step:
    return Step(name=name, arguments={}, depth=depth, started_at=0.0, started_wall=0.0)


def audits(screen: FakeScreen, mode: str = REPORT) -> StepAudits:
    return StepAudits(cast(Mirror, screen), None, mode, [], lambda: None)


def small_button_view() -> View:
    return view_of(root(), node(2, 1, "android.widget.ImageButton", (100, 500, 160, 560), clickable=True, desc="x"))


def test_an_action_is_audited_before_the_next_call_and_its_finding_reported_once() -> None:
    screen = FakeScreen(small_button_view(), shot_error=AgentError("screenshot_failed", "a secure window"))
    each = audits(screen)
    each.step_ended(step("find"))          # not an action: nothing to audit
    each.before_call("tap")
    assert each.new == [] and screen.shots == 0
    tap = step("tap")
    each.step_ended(tap)
    each.before_call("find")
    assert [(s.name, f.rule) for s, f in each.new] == [("tap", "touch_target_size")]
    assert screen.shots == 1  # tried, failed: contrast unmeasured, the test goes on
    each.step_ended(step("tap"))
    each.before_call("find")
    assert len(each.new) == 1  # the same finding is not new again


def test_fail_raises_at_a_new_error_naming_the_step_and_the_element() -> None:
    each = audits(FakeScreen(small_button_view(), shot_error=AgentError("screenshot_failed", "secure")), FAIL)
    each.step_ended(step("element.tap"))
    wanted = r"(?s)element.tap brought 1 new error.*touch_target_size on @\d+ ImageButton"
    with pytest.raises(AccessibilityFailure, match=wanted):
        each.before_call("wait_for")


def test_a_nested_step_or_a_failed_action_is_not_audited() -> None:
    each = audits(FakeScreen(small_button_view()))
    each.step_ended(step("tap", depth=1))
    failed = step("tap")
    failed.error = RuntimeError("missed")
    each.step_ended(failed)
    each.before_call("find")
    assert each.new == []




class FakeController:
    def __init__(self, frame: Frame) -> None:
        self.frame, self.calls = frame, 0

    def screenshot(self) -> Frame:
        self.calls += 1
        return self.frame


def faint_icon_view() -> View:
    return view_of(root(), node(2, 1, "android.widget.ImageView", (100, 500, 300, 700), desc="badge"))


def frame(rotation: int = 0) -> Frame:
    pixels = np.full((2400, 1080, 3), 250, dtype=np.uint8)
    pixels[540:660, 140:260] = 222  # a faint icon: 1.2:1
    return Frame(1080, 2400, pixels.tobytes(), rotation=rotation)


@pytest.mark.parametrize(("rotation", "from_controller"), [(0, True), (1, False)])
def test_the_controllers_raw_frame_is_the_screenshot_when_it_is_the_displays_upright(
        rotation: int, from_controller: bool) -> None:
    screen = FakeScreen(faint_icon_view(), shot_error=AgentError("screenshot_failed", "secure"))
    controller = FakeController(frame(rotation))
    each = StepAudits(cast(Mirror, screen), None, REPORT, [], lambda: None, cast(Controller, controller))
    each.step_ended(step("tap"))
    each.before_call("find")
    assert controller.calls == 1 and screen.shots == (0 if from_controller else 1)
    assert [f.rule for _, f in each.new] == (["image_contrast"] if from_controller else [])
