"""The screen's gestures of several fingers (mirror/gesture_actions.py) on a scripted backend: each
waits for its element as `tap` does, is one step of the trace with its `Ack`, and refuses bad input
before any input."""

from __future__ import annotations

import math

import pytest

from pytest_mobile_agent.errors import InvalidArgument, WaitTimeout
from tests.support.mirror_fakes import Rig, login_screen
from tests.support.step_recorder import StepRecorder


def fingers(rig: Rig) -> list[tuple[tuple[float, float, float], ...]]:
    name, paths = rig.input.calls[-1]
    assert name == "gesture"
    return list(paths)


def test_a_pinch_on_an_element_is_one_step_whose_fingers_stay_on_it_and_returns_the_ack() -> None:
    rig = Rig(login_screen())
    recorder = StepRecorder()
    rig.mirror.steps.add_listener(recorder)
    ack = rig.mirror.pinch(id="user", scale=0.6)
    assert ack.accepted
    assert [s.name for s in recorder.ended][-1] == "pinch" and recorder.ended[-1].result == ack
    assert "actionable" in [s.name for s in recorder.ended], "it waited for the element"
    paths = fingers(rig)
    assert len(paths) == 2
    assert all(60 <= x <= 1020 and 500 <= y <= 640 for path in paths for x, y, _ in path)


def test_a_pinch_without_an_element_acts_on_the_middle_of_the_display() -> None:
    rig = Rig(login_screen())
    rig.mirror.pinch(scale=2)
    a, b = fingers(rig)
    assert (a[0][0] + b[0][0]) / 2 == pytest.approx(540) and (a[0][1] + b[0][1]) / 2 == pytest.approx(1200)


def test_a_double_tap_taps_the_centre_twice_and_a_drag_goes_from_source_to_target() -> None:
    rig = Rig(login_screen())
    rig.mirror.double_tap(id="user")
    first, second = fingers(rig)
    assert first[0][:2] == second[0][:2] == (540, 570)
    source = rig.mirror.find(id="user")
    rig.mirror.drag(source, (540, 1500), hold=0.7, duration=0.3)
    (path,) = fingers(rig)
    assert path[0][:2] == (540, 570) and path[1] == (540, 570, 0.7) and path[-1][:2] == (540, 1500)


def test_rotate_and_two_finger_tap_put_two_fingers_down() -> None:
    rig = Rig(login_screen())
    rig.mirror.rotate(id="user", degrees=-45)
    assert len(fingers(rig)) == 2
    rig.mirror.two_finger_tap()
    a, b = fingers(rig)
    assert a[0][2] == b[0][2] == 0


@pytest.mark.parametrize(("call", "said"), [
    (lambda m: m.pinch(id="user", scale=0), "above 0"),
    (lambda m: m.pinch(id="user", scale=-2), "above 0"),
    (lambda m: m.pinch(id="user", scale=math.nan), "scale"),
    (lambda m: m.gesture([]), "at least one finger path"),
    (lambda m: m.gesture([[(1, 1, 0), (1, 1, 0.1)]] * 11), "at most 10 fingers"),
    (lambda m: m.gesture([[(1, 1, 0), (1500, 1, 0.1)]]), "outside the display"),
    (lambda m: m.drag((1, 1), (1, 2, 3)), "a point is"),
    (lambda m: m.drag("here", (1, 2)), "a point is"),
    (lambda m: m.drag((1, 1), (1, 5000)), "outside the display"),
])
def test_bad_input_is_refused_before_any_input(call: object, said: str) -> None:
    rig = Rig(login_screen())
    with pytest.raises(InvalidArgument, match=said):
        call(rig.mirror)  # type: ignore[operator]
    assert rig.input.calls == []


def test_a_gesture_on_an_element_that_never_comes_times_out_like_a_tap() -> None:
    rig = Rig(login_screen())
    with pytest.raises(WaitTimeout, match="actionable"):
        rig.mirror.pinch(text="Map", scale=2, timeout=0.3)
    assert rig.input.calls == []
