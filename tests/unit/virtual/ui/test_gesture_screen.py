"""The fixture app's Gestures screen: what its picture and its list make of several pointers, fed as
the agent injects them (virtual/agent/multitouch.py) and as the touchscreen reports them
(ui/pointers.FrameMapper), on the model's clock (ui/recognizers.py has the rules and thresholds)."""

from __future__ import annotations

import math
import re

import pytest

from pytest_mobile_agent.virtual.agent.multitouch import motion_events
from pytest_mobile_agent.virtual.ui import EmulatorUi, ManualClock
from pytest_mobile_agent.virtual.ui.fixture import COMPOSE_MS, LAUNCH_MS, PACKAGE, TABS
from pytest_mobile_agent.virtual.ui.gesture_screen import SCREEN
from pytest_mobile_agent.virtual.ui.node import Node, Window
from pytest_mobile_agent.virtual.ui.pointers import FrameMapper


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def ui(clock: ManualClock) -> EmulatorUi:
    return EmulatorUi(clock)


def gestures(ui: EmulatorUi, clock: ManualClock) -> Window:
    ui.start_app({"tab": SCREEN})
    clock.advance(LAUNCH_MS + COMPOSE_MS[SCREEN] + 1)
    ui.advance()
    return next(w for w in ui.windows() if w.package == PACKAGE and not w.modal)


def node(window: Window, res: str) -> Node:
    found = window.by_res(res)
    assert found is not None, res
    return found


def scale_of(window: Window) -> float:
    match = re.search(r"scale (\d+\.\d+)", node(window, "picture").desc or "")
    assert match is not None
    return float(match.group(1))


def rotation_of(window: Window) -> float:
    match = re.search(r"rotation (-?\d+)", node(window, "picture").desc or "")
    assert match is not None
    return float(match.group(1))


def inject(ui: EmulatorUi, clock: ManualClock, paths: list[list[tuple[int, int, int]]]) -> None:
    """The agent's gesture: every event queued at its time, the clock run past the last one."""
    t0 = clock.now_ms()
    events = motion_events(paths, t0)
    ui.motions(events)
    clock.advance(max(p[-1][2] for p in paths) + 1)
    ui.advance()


def center(window: Window, res: str) -> tuple[int, int]:
    left, top, right, bottom = node(window, res).bounds
    return (left + right) // 2, (top + bottom) // 2


Paths = list[list[tuple[int, int, int]]]


def pinch_paths(cx: int, cy: int, start: int, end: int, ms: int = 400, steps: int = 25) -> Paths:
    """Two fingers on a diagonal through (cx, cy), their distance going from `start` to `end`."""
    def finger(sign: int) -> list[tuple[int, int, int]]:
        out = []
        for i in range(steps + 1):
            half = (start + (end - start) * i / steps) / 2 / math.sqrt(2)
            out.append((round(cx + sign * half), round(cy + sign * half), ms * i // steps))
        return out

    return [finger(-1), finger(1)]


def test_the_screen_is_its_own_and_leaves_the_tab_row_alone(ui: EmulatorUi, clock: ManualClock) -> None:
    window = gestures(ui, clock)
    assert SCREEN not in TABS
    assert scale_of(window) == 1.0 and rotation_of(window) == 0
    rows = [n.text for n in node(window, "reorder_list").children]
    assert rows == [f"Item {i}" for i in range(1, 7)]


def test_a_pinch_out_scales_the_picture_by_the_span_ratio_from_where_the_detector_began(
        ui: EmulatorUi, clock: ManualClock) -> None:
    window = gestures(ui, clock)
    cx, cy = center(window, "picture")
    slop = 2 * round(8 * 420 / 160)  # ScaleGestureDetector's span slop: twice the touch slop
    inject(ui, clock, pinch_paths(cx, cy, 500, 1000))
    # the detector begins at the first span past 500 + slop (the fingers move 20 px of span a step),
    # and scales from there: 1000 / 540, not 1000 / 500
    assert 1000 / (500 + slop + 20) - 0.01 <= scale_of(window) <= 1000 / (500 + slop) + 0.01


def test_a_pinch_in_shrinks_it_and_stops_at_the_minimum_span(ui: EmulatorUi, clock: ManualClock) -> None:
    window = gestures(ui, clock)
    cx, cy = center(window, "picture")
    inject(ui, clock, pinch_paths(cx, cy, 1100, 600))
    assert 0.5 < scale_of(window) < 0.6
    scaled = scale_of(window)
    min_span = round(170 * 420 / 160)  # ViewConfiguration MIN_SCALING_SPAN, 446 px
    inject(ui, clock, pinch_paths(cx, cy, 600, min_span - 100))
    assert scale_of(window) == pytest.approx(scaled * min_span / 600, abs=0.05), "no scaling below the minimum span"


def test_two_fingers_turning_rotate_it(ui: EmulatorUi, clock: ManualClock) -> None:
    window = gestures(ui, clock)
    cx, cy = center(window, "picture")
    radius = 300
    def at(sign: int, degrees: int) -> tuple[int, int]:
        angle = math.radians(degrees)
        return round(cx + sign * radius * math.cos(angle)), round(cy + sign * radius * math.sin(angle))

    paths = [[(*at(sign, a), i * 16) for i, a in enumerate(range(0, 91, 3))] for sign in (1, -1)]
    inject(ui, clock, paths)
    assert 80 <= rotation_of(window) <= 91
    assert scale_of(window) == pytest.approx(1.0, abs=0.02)


def test_a_double_tap_is_two_taps_within_the_timeout_and_zooms(ui: EmulatorUi, clock: ManualClock) -> None:
    window = gestures(ui, clock)
    x, y = center(window, "picture")
    inject(ui, clock, [[(x, y, 0), (x, y, 50)], [(x, y, 150), (x, y, 200)]])
    assert node(window, "gesture_status").text == "taps 1, double taps 1, long presses 0, two-finger taps 0"
    assert scale_of(window) == 2.0


@pytest.mark.parametrize(("gap", "why"), [(20, "under DOUBLE_TAP_MIN_TIME"), (320, "past DOUBLE_TAP_TIMEOUT")])
def test_two_taps_too_close_or_too_far_apart_are_two_taps(
        ui: EmulatorUi, clock: ManualClock, gap: int, why: str) -> None:
    window = gestures(ui, clock)
    x, y = center(window, "picture")
    inject(ui, clock, [[(x, y, 0), (x, y, 50)], [(x, y, 50 + gap), (x, y, 100 + gap)]])
    assert node(window, "gesture_status").text == "taps 2, double taps 0, long presses 0, two-finger taps 0", why


def test_a_press_held_past_the_timeout_is_a_long_press_not_a_tap(ui: EmulatorUi, clock: ManualClock) -> None:
    window = gestures(ui, clock)
    x, y = center(window, "picture")
    inject(ui, clock, [[(x, y, 0), (x, y, 700)]])
    assert node(window, "gesture_status").text == "taps 0, double taps 0, long presses 1, two-finger taps 0"


def test_two_fingers_down_and_up_together_are_a_two_finger_tap(ui: EmulatorUi, clock: ManualClock) -> None:
    window = gestures(ui, clock)
    x, y = center(window, "picture")
    inject(ui, clock, [[(x - 150, y, 0), (x - 150, y, 80)], [(x + 150, y, 0), (x + 150, y, 80)]])
    assert node(window, "gesture_status").text == "taps 0, double taps 0, long presses 0, two-finger taps 1"


def drag(window: Window, source: int, target: int, hold: int) -> list[list[tuple[int, int, int]]]:
    rows = node(window, "reorder_list").children
    left, top, right, bottom = rows[source].bounds
    x, y1 = (left + right) // 2, (top + bottom) // 2
    y2 = (rows[target].bounds[1] + rows[target].bounds[3]) // 2
    moves = [(x, round(y1 + (y2 - y1) * i / 30), hold + 16 * i) for i in range(1, 31)]
    return [[(x, y1, 0), (x, y1, hold), *moves]]


def test_a_drag_after_the_long_press_reorders_the_list(ui: EmulatorUi, clock: ManualClock) -> None:
    window = gestures(ui, clock)
    inject(ui, clock, drag(window, 0, 3, hold=600))
    rows = [n.text for n in node(window, "reorder_list").children]
    assert rows == ["Item 2", "Item 3", "Item 4", "Item 1", "Item 5", "Item 6"]


def test_a_drag_without_the_hold_moves_nothing(ui: EmulatorUi, clock: ManualClock) -> None:
    window = gestures(ui, clock)
    inject(ui, clock, drag(window, 0, 3, hold=100))
    rows = [n.text for n in node(window, "reorder_list").children]
    assert rows == [f"Item {i}" for i in range(1, 7)]


def test_the_touchscreen_frames_make_the_same_pinch(ui: EmulatorUi, clock: ManualClock) -> None:
    """Two contacts reported frame by frame (the controller's path) pinch as the injected events do."""
    window = gestures(ui, clock)
    cx, cy = center(window, "picture")
    mapper = FrameMapper()
    a, b = pinch_paths(cx, cy, 500, 1000)
    t0 = clock.now_ms()
    events = mapper.frame([(0, a[0][0], a[0][1], True), (1, b[0][0], b[0][1], True)], t0)
    for (ax, ay, t), (bx, by, _) in zip(a[1:], b[1:], strict=True):
        events += mapper.frame([(0, ax, ay, True), (1, bx, by, True)], t0 + t)
    events += mapper.frame([(0, a[-1][0], a[-1][1], False), (1, b[-1][0], b[-1][1], False)], t0 + 401)
    ui.post_motions(events)
    clock.advance(402)
    ui.advance()
    assert [e.describe().split("@")[0] for e in events[:2]] == ["DOWN", "POINTER_DOWN(1)"]
    assert [e.describe().split("@")[0] for e in events[-2:]] == ["POINTER_UP(0)", "UP"]
    assert scale_of(window) > 1.7


def test_the_picture_is_drawn_at_its_scale_and_not_after_the_screen_is_gone(ui: EmulatorUi, clock: ManualClock) -> None:
    window = gestures(ui, clock)
    left, top, right, bottom = node(window, "picture").bounds
    before = ui.render().crop((left, top, right, bottom)).tobytes()
    x, y = center(window, "picture")
    inject(ui, clock, [[(x, y, 0), (x, y, 50)], [(x, y, 150), (x, y, 200)]])  # a double tap zooms to 2x
    assert ui.render().crop((left, top, right, bottom)).tobytes() != before
    ui.start_app({"tab": "Login"})
    clock.advance(COMPOSE_MS["Login"] + 1)
    ui.advance()
    assert not any(getattr(a, "shown", lambda: False)() for a in ui.animations)
