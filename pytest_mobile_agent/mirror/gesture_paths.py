"""The fingers' paths of the screen's gestures: pinch, rotate, double tap, two-finger tap, drag, and
the check of a gesture's paths before any input.

A path is one finger: a tuple of points (x, y, t), physical pixels and seconds from the gesture's
start; the finger goes down at the first point, moves through the others and lifts at the last.
The shapes are made for what the platform's detectors need (frameworks/base, Android 13-16; the
virtual device's ui/recognizers.py follows the same rules):

- a pinch keeps both fingers' distance (ScaleGestureDetector's span) at least 15% above the minimum
  scaling span (ViewConfiguration MIN_SCALING_SPAN, 170 dp), under which the detector stops, and
  first moves the fingers past the span slop (2 x the touch slop, 16 dp) in one step: the detector
  scales from where it began, so the span from there changes by exactly `scale`;
- a rotation's first step turns past Compose's touch slop on the fingers' circle, so no turn is
  lost before the transform detector counts it;
- a double tap is two 30 ms taps, the second going down 100 ms after the first lifts, at the same
  place: GestureDetector takes it when that gap is within [DOUBLE_TAP_MIN_TIME 40 ms,
  DOUBLE_TAP_TIMEOUT 300 ms] and the second press comes while the first press's TAP message, posted
  for DOUBLE_TAP_TIMEOUT, is still pending (130 ms after it here), so a host that runs late between
  the taps (the controller's path) may stretch them by 170 ms, or take them up to 50 ms closer (the
  second press goes at least half its gap after the emulator read the lift: session/multitouch.py),
  and the double tap still lands;
- a drag holds still for `hold` (past the long-press timeout, which starts the drag of a
  reorderable list or a map pin), moves, and rests at the target before it lifts, so it does not
  fling.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from pytest_mobile_agent.errors import InvalidArgument

Point = tuple[float, float, float]
FingerPath = tuple[Point, ...]
Box = tuple[float, float, float, float]

STEP = 0.016
"""Seconds between two points of a moving finger: a 60 Hz touchscreen's reports."""
MAX_FINGERS = 10
"""The emulator's touchscreen takes 10 contacts (emulator_controller.proto's Touch.identifier)."""
TOUCH_SLOP_DP = 8
MIN_SCALING_SPAN_DP = 170
SPAN_MARGIN = 1.15
EDGE_MARGIN = 0.08
"""The share of the box's size the fingers keep from its edges."""
TAP_S = 0.05
DOUBLE_TAP_PRESS_S = 0.03
DOUBLE_TAP_GAP_S = 0.1
REST_S = 0.06
"""A drag rests this long at its target: the velocity tracker takes a finger still 40 ms as stopped."""


def dp(value: float, density: int) -> float:
    return value * density / 160


def center(box: Box) -> tuple[float, float]:
    return (box[0] + box[2]) / 2, (box[1] + box[3]) / 2


def _steps(duration: float) -> int:
    return max(1, round(duration / STEP))


def pinch(box: Box, scale: float, duration: float, density: int) -> list[FingerPath]:
    """Two fingers on the box's diagonal through its centre, their distance changed by `scale`
    after a first step past the span slop (module doc). `scale` < 1 pinches in."""
    cx, cy = center(box)
    width, height = (box[2] - box[0]) * (1 - 2 * EDGE_MARGIN), (box[3] - box[1]) * (1 - 2 * EDGE_MARGIN)
    widest = math.hypot(width, height)
    lead = 2 * dp(TOUCH_SLOP_DP, density) + 2
    smallest = dp(MIN_SCALING_SPAN_DP, density) * SPAN_MARGIN
    if scale >= 1:  # from the smallest span out, as far as the box allows
        begin = smallest if smallest * scale <= widest else widest / scale
        start, end = max(1.0, begin - lead), begin * scale
    else:  # in to the smallest span, from as far out as that needs
        begin = smallest / scale if smallest / scale + lead <= widest else widest - lead
        start, end = begin + lead, begin * scale
    spans = [start, begin] + [begin + (end - begin) * i / _steps(duration) for i in range(1, _steps(duration) + 1)]
    times = [0.0, STEP] + [STEP + duration * i / _steps(duration) for i in range(1, _steps(duration) + 1)]
    ux, uy = width / widest, height / widest  # the diagonal's direction
    fingers = []
    for sign in (-1, 1):
        path = [(cx + sign * ux * s / 2, cy + sign * uy * s / 2, t) for s, t in zip(spans, times, strict=True)]
        fingers.append(_rest_and_lift(path))
    return fingers


def rotate(box: Box, degrees: float, duration: float, density: int) -> list[FingerPath]:
    """Two fingers opposite each other on a circle around the box's centre, turned by `degrees`
    (clockwise on the screen when positive), the first step past the touch slop (module doc)."""
    cx, cy = center(box)
    radius = min(box[2] - box[0], box[3] - box[1]) * (0.5 - EDGE_MARGIN) * 0.8
    slop_degrees = math.degrees(dp(TOUCH_SLOP_DP, density) / max(radius, 1.0)) * 1.2
    first = math.copysign(min(abs(degrees), slop_degrees), degrees)
    n = _steps(duration)
    angles = [0.0, first] + [first + (degrees - first) * i / n for i in range(1, n + 1)]
    times = [0.0, STEP] + [STEP + duration * i / n for i in range(1, n + 1)]
    fingers = []
    for base in (180.0, 0.0):
        path = [(cx + radius * math.cos(math.radians(base + a)), cy + radius * math.sin(math.radians(base + a)), t)
                for a, t in zip(angles, times, strict=True)]
        fingers.append(_rest_and_lift(path))
    return fingers


def double_tap(x: float, y: float) -> list[FingerPath]:
    """Two taps at (x, y), the second going down 100 ms after the first lifts (module doc)."""
    second = DOUBLE_TAP_PRESS_S + DOUBLE_TAP_GAP_S
    return [((x, y, 0.0), (x, y, DOUBLE_TAP_PRESS_S)), ((x, y, second), (x, y, second + DOUBLE_TAP_PRESS_S))]


def two_finger_tap(box: Box, density: int) -> list[FingerPath]:
    """Two fingers down and up together, side by side around the box's centre."""
    cx, cy = center(box)
    half = min((box[2] - box[0]) * (0.5 - EDGE_MARGIN), dp(48, density)) / 2
    return [((cx - half, cy, 0.0), (cx - half, cy, TAP_S)), ((cx + half, cy, 0.0), (cx + half, cy, TAP_S))]


def drag(source: tuple[float, float], target: tuple[float, float], hold: float, duration: float) -> list[FingerPath]:
    """One finger pressed on `source`, held `hold` seconds, moved to `target` over `duration`,
    resting there before it lifts (module doc)."""
    (sx, sy), (tx, ty) = source, target
    n = _steps(duration)
    path = [(sx, sy, 0.0), (sx, sy, hold)]
    path += [(sx + (tx - sx) * i / n, sy + (ty - sy) * i / n, hold + duration * i / n) for i in range(1, n + 1)]
    return [_rest_and_lift(path)]


def _rest_and_lift(path: list[Point]) -> FingerPath:
    x, y, t = path[-1]
    return (*path, (x, y, t + REST_S))


def check_paths(paths: Sequence[Sequence[Sequence[float]]], width: int, height: int) -> list[FingerPath]:
    """The paths as the input takes them, or InvalidArgument naming what is wrong, before any input:
    no path, more than 10 fingers, a path of fewer than two points, a point that is not (x, y, t)
    numbers, a time going back or a path lifting when it went down, a point outside the display."""
    if isinstance(paths, (str, bytes)) or not isinstance(paths, Sequence) or not paths:
        raise InvalidArgument("a gesture needs at least one finger path: a list of points (x, y, t), t in seconds")
    if len(paths) > MAX_FINGERS:
        raise InvalidArgument(f"a gesture has at most {MAX_FINGERS} fingers (the touchscreen's contacts), "
                              f"not {len(paths)}: split it into several gestures")
    return [_checked_path(i, path, width, height) for i, path in enumerate(paths)]


def _checked_path(index: int, path: Sequence[Sequence[float]], width: int, height: int) -> FingerPath:
    if isinstance(path, (str, bytes)) or not isinstance(path, Sequence) or len(path) < 2:
        raise InvalidArgument(f"finger path {index} needs at least two points (x, y, t): where it goes down "
                              "and where it lifts")
    points: list[Point] = []
    for point in path:
        if (isinstance(point, (str, bytes)) or not isinstance(point, Sequence) or len(point) != 3
                or not all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
                           for v in point)):
            raise InvalidArgument(f"finger path {index}: each point is (x, y, t), three finite numbers, not {point!r}")
        x, y, t = (float(v) for v in point)
        if t < 0 or (points and t < points[-1][2]):
            raise InvalidArgument(f"finger path {index}: its times must start at 0 or later and never go back "
                                  f"(at {point!r})")
        if width > 0 and height > 0 and not (0 <= x < width and 0 <= y < height):
            raise InvalidArgument(f"finger path {index}: point ({x:g}, {y:g}) is outside the display, which is "
                                  f"{width}x{height} now")
        points.append((x, y, t))
    if round(points[-1][2] * 1000) <= round(points[0][2] * 1000):
        raise InvalidArgument(f"finger path {index} lifts when it goes down: its last point's time must come "
                              "at least a millisecond after its first")
    return tuple(points)
