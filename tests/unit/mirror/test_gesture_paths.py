"""The fingers' paths of the screen's gestures (mirror/gesture_paths.py) and the check of a
gesture's paths before any input."""

from __future__ import annotations

import math

import pytest

from pytest_mobile_agent.errors import InvalidArgument
from pytest_mobile_agent.mirror.gesture_paths import (
    check_paths,
    double_tap,
    drag,
    pinch,
    rotate,
    two_finger_tap,
)

BOX = (54.0, 440.0, 1026.0, 1340.0)  # the virtual fixture's picture
DENSITY = 420
MIN_SPAN = 170 * DENSITY / 160
SPAN_SLOP = 2 * 8 * DENSITY / 160


def spans(paths: list[tuple[tuple[float, float, float], ...]]) -> list[float]:
    a, b = paths
    return [math.hypot(p[0] - q[0], p[1] - q[1]) for p, q in zip(a, b, strict=True)]


def inside(paths: list[tuple[tuple[float, float, float], ...]], box: tuple[float, float, float, float]) -> bool:
    return all(box[0] <= x <= box[2] and box[1] <= y <= box[3] for path in paths for x, y, _ in path)


@pytest.mark.parametrize("scale", [2.0, 1.5, 0.5, 0.7])
def test_a_pinch_changes_the_span_by_the_scale_from_its_first_step_past_the_span_slop(scale: float) -> None:
    paths = pinch(BOX, scale, 0.4, DENSITY)
    s = spans(paths)
    assert abs(s[1] - s[0]) > SPAN_SLOP, "the first step takes the detector past its span slop"
    assert s[-1] / s[1] == pytest.approx(scale, rel=1e-6)
    assert min(s[1:]) >= MIN_SPAN * 1.1, "it scales without going under ScaleGestureDetector's minimum span"
    assert inside(paths, BOX)
    assert paths[0][-1][2] > 0.4 and paths[0][-1][:2] == paths[0][-2][:2], "rests before it lifts"


def test_a_rotation_turns_the_fingers_by_the_degrees_around_the_centre() -> None:
    a, b = rotate(BOX, 90, 0.5, DENSITY)
    cx, cy = 540, 890
    start = math.degrees(math.atan2(b[0][1] - cy, b[0][0] - cx))
    end = math.degrees(math.atan2(b[-1][1] - cy, b[-1][0] - cx))
    assert end - start == pytest.approx(90, abs=0.01)
    assert math.hypot(a[0][0] - b[0][0], a[0][1] - b[0][1]) == pytest.approx(math.hypot(a[-1][0] - b[-1][0],
                                                                                         a[-1][1] - b[-1][1]))
    assert inside([a, b], BOX)


def test_a_double_tap_goes_down_again_within_the_double_tap_timeout_after_the_first_lift() -> None:
    first, second = double_tap(100, 200)
    gap = second[0][2] - first[-1][2]
    assert 0.040 <= gap <= 0.300 and first[0][:2] == second[0][:2] == (100, 200)


def test_a_two_finger_tap_puts_two_fingers_down_and_up_together() -> None:
    a, b = two_finger_tap(BOX, DENSITY)
    assert a[0][2] == b[0][2] and a[-1][2] == b[-1][2] and a[0][0] < b[0][0]


def test_a_drag_holds_still_then_moves_to_the_target_and_rests() -> None:
    (path,) = drag((100, 200), (100, 800), hold=0.6, duration=0.5)
    assert path[0] == (100, 200, 0.0) and path[1] == (100, 200, 0.6)
    assert path[-2][:2] == path[-1][:2] == (100, 800)
    assert path[-2][2] == pytest.approx(1.1)


@pytest.mark.parametrize(("paths", "said"), [
    ([], "at least one finger path"),
    ("abc", "at least one finger path"),
    ([[(1, 1, 0), (1, 1, 0.1)]] * 11, "at most 10 fingers"),
    ([[(1, 1, 0)]], "at least two points"),
    ([[(1, 1, 0), (1, 1)]], "three finite numbers"),
    ([[(1, 1, 0), (1, math.nan, 0.1)]], "three finite numbers"),
    ([[(1, 1, 0.2), (1, 1, 0.1)]], "never go back"),
    ([[(1, 1, 0.1), (1, 1, 0.1)]], "lifts when it goes down"),
    ([[(1, 1, 0), (1080, 1, 0.1)]], "outside the display"),
    ([[(1, -1, 0), (1, 1, 0.1)]], "outside the display"),
])
def test_bad_paths_are_invalid_arguments_naming_the_cause(paths: object, said: str) -> None:
    with pytest.raises(InvalidArgument, match=said):
        check_paths(paths, 1080, 2400)  # type: ignore[arg-type]


def test_good_paths_come_back_as_tuples_of_floats() -> None:
    assert check_paths([[(1, 2, 0), (3, 4, 0.5)]], 1080, 2400) == [((1.0, 2.0, 0.0), (3.0, 4.0, 0.5))]
