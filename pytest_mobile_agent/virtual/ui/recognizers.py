"""What an app's gesture detectors make of a stream of MotionEvents (ui/pointers.py).

The rules and thresholds are the framework's (frameworks/base, Android 13-16), in pixels at the
display's density:

- `ScaleDetector` is ScaleGestureDetector (core/java/android/view/ScaleGestureDetector.java): the
  focus is the pointers' average (without the one lifting), the span the diameter of their average
  deviation from it (`2 * hypot(devX, devY)`); a pointer going down or up restarts the gesture from
  the span then; it begins once the span is at least the minimum scaling span (ViewConfiguration
  MIN_SCALING_SPAN, 170 dp) and has moved more than the span slop (2 x the touch slop, 16 dp) from
  where it started; each ACTION_MOVE after that scales by span / previous span; a span under the
  minimum ends it.
- `RotationDetector` is Compose's transform detector (androidx compose/foundation
  TransformGestureDetector.kt, `detectTransformGestures` and `calculateRotation`): the rotation of
  an event is the pointers' angle change around the centroid, weighted by their distance to it; it
  counts once the rotation since the touch-down moved a pointer on the centroid's circle further
  than the touch slop (`rotationMotion > touchSlop`). The framework has no rotation detector.
- `TapDetector` is GestureDetector (core/java/android/view/GestureDetector.java): a tap stays within
  the touch slop (ViewConfiguration TOUCH_SLOP, 8 dp) and lifts before the long-press timeout; a
  second touch-down is a double tap (`isConsideredDoubleTap`) when the first tap's TAP message was
  still pending (posted at its DOWN for DOUBLE_TAP_TIMEOUT, 300 ms, and removed by a long press, a
  move beyond the slop or a second pointer: `cancelTaps`), the time from the first UP to the second
  DOWN is within [DOUBLE_TAP_MIN_TIME 40 ms, DOUBLE_TAP_TIMEOUT 300 ms], and the two DOWNs lie within
  DOUBLE_TAP_SLOP (100 dp) of each other; a pointer still within the slop at the DOWN's time plus
  the long-press timeout is a long press (the LONG_PRESS message, here decided on the next event's
  time, which is the same verdict: nothing else can happen in between). A two-finger tap (two
  pointers that stay within the slop and all lift before the long-press timeout, Google Maps'
  zoom-out) is the app's own rule, not a framework detector.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from pytest_mobile_agent.virtual.ui.gestures import LONG_PRESS_MS
from pytest_mobile_agent.virtual.ui.pointers import (
    ACTION_DOWN,
    ACTION_MOVE,
    ACTION_POINTER_DOWN,
    ACTION_POINTER_UP,
    ACTION_UP,
    MotionEvent,
)

DOUBLE_TAP_TIMEOUT_MS = 300.0
DOUBLE_TAP_MIN_TIME_MS = 40.0
DOUBLE_TAP_SLOP_DP = 100
MIN_SCALING_SPAN_DP = 170


@dataclass(frozen=True)
class Thresholds:
    """The ViewConfiguration values in pixels at one density."""

    touch_slop: int
    min_span: int
    double_tap_slop: int

    @classmethod
    def at(cls, density: int) -> Thresholds:
        def px(dp: float) -> int:
            return round(dp * density / 160)

        return cls(touch_slop=px(8), min_span=px(MIN_SCALING_SPAN_DP), double_tap_slop=px(DOUBLE_TAP_SLOP_DP))


def _live(event: MotionEvent) -> list[tuple[int, int, int]]:
    """The pointers that stay after the event (the lifting one left out, as ScaleGestureDetector's skipIndex)."""
    if event.masked in (ACTION_POINTER_UP, ACTION_UP):
        return [p for i, p in enumerate(event.pointers) if i != event.index]
    return list(event.pointers)


def focus_and_span(event: MotionEvent) -> tuple[float, float, float]:
    pointers = _live(event)
    if not pointers:
        return 0.0, 0.0, 0.0
    fx = sum(x for _, x, _ in pointers) / len(pointers)
    fy = sum(y for _, _, y in pointers) / len(pointers)
    dev_x = sum(abs(x - fx) for _, x, _ in pointers) / len(pointers)
    dev_y = sum(abs(y - fy) for _, _, y in pointers) / len(pointers)
    return fx, fy, math.hypot(dev_x * 2, dev_y * 2)


class ScaleDetector:
    """ScaleGestureDetector without quick scale (module doc); `on_scale(factor)` per scaling move."""

    def __init__(self, thresholds: Thresholds, on_scale: Callable[[float], None]) -> None:
        self.span_slop = thresholds.touch_slop * 2
        self.min_span = thresholds.min_span
        self.on_scale = on_scale
        self.in_progress = False
        self.initial_span = self.prev_span = 0.0

    def on_event(self, event: MotionEvent) -> None:
        action = event.masked
        if action in (ACTION_DOWN, ACTION_UP):
            self.in_progress = False
            if action == ACTION_UP:
                return
        config_changed = action in (ACTION_POINTER_DOWN, ACTION_POINTER_UP)
        _, _, span = focus_and_span(event)
        was_in_progress = self.in_progress
        if self.in_progress and (span < self.min_span or config_changed):
            self.in_progress = False
            self.initial_span = span
        if config_changed or action == ACTION_DOWN:
            self.initial_span = self.prev_span = span
        if not self.in_progress and span >= self.min_span and (
                was_in_progress or abs(span - self.initial_span) > self.span_slop):
            self.prev_span = span
            self.in_progress = True
        if action == ACTION_MOVE:
            if self.in_progress and self.prev_span > 0:
                self.on_scale(span / self.prev_span)
            self.prev_span = span


class RotationDetector:
    """Compose's rotation of a transform gesture (module doc); `on_rotate(degrees)` clockwise on screen."""

    def __init__(self, thresholds: Thresholds, on_rotate: Callable[[float], None]) -> None:
        self.touch_slop = thresholds.touch_slop
        self.on_rotate = on_rotate
        self.previous: MotionEvent | None = None
        self.past_slop = False
        self.rotation = 0.0

    def on_event(self, event: MotionEvent) -> None:
        if event.masked == ACTION_DOWN:
            self.past_slop, self.rotation = False, 0.0
        previous, self.previous = self.previous, event
        if event.masked != ACTION_MOVE or previous is None:
            return
        change, size = rotation_between(previous, event)
        if not self.past_slop:
            self.rotation += change
            if abs(self.rotation * math.pi * size / 180.0) > self.touch_slop:
                self.past_slop = True
        if self.past_slop and change:
            self.on_rotate(change)


def rotation_between(before: MotionEvent, after: MotionEvent) -> tuple[float, float]:
    """Degrees the pointers down in both events turned around their centroid (weighted by their
    distance to it), and the previous centroid size (mean distance to the centroid)."""
    common = [pid for pid, _, _ in after.pointers if before.position(pid) is not None]
    if len(common) < 2:
        return 0.0, 0.0
    old = [before.position(pid) for pid in common]
    new = [after.position(pid) for pid in common]
    ocx, ocy = sum(p[0] for p in old if p) / len(old), sum(p[1] for p in old if p) / len(old)
    ncx, ncy = sum(p[0] for p in new if p) / len(new), sum(p[1] for p in new if p) / len(new)
    total = weights = 0.0
    for o, n in zip(old, new, strict=True):
        assert o is not None and n is not None
        ox, oy, nx, ny = o[0] - ocx, o[1] - ocy, n[0] - ncx, n[1] - ncy
        diff = math.degrees(math.atan2(ny, nx) - math.atan2(oy, ox))
        diff = diff - 360 if diff > 180 else diff + 360 if diff < -180 else diff
        weight = math.hypot(ox + nx, oy + ny) / 2
        total += diff * weight
        weights += weight
    size = sum(math.hypot(p[0] - ocx, p[1] - ocy) for p in old if p) / len(old)
    return (total / weights if weights else 0.0), size


@dataclass
class TapListener:
    """What the app does on each verdict (every one optional)."""

    on_tap: Callable[[int, int], None] | None = None
    on_double_tap: Callable[[int, int], None] | None = None
    on_long_press: Callable[[int, int], None] | None = None
    on_two_finger_tap: Callable[[], None] | None = None
    on_drag: Callable[[int, int], None] | None = None
    """After a long press: the pointer moved to (x, y)."""
    on_drop: Callable[[int, int], None] | None = None
    """After a long press: the pointer lifted at (x, y)."""


class TapDetector:
    """GestureDetector's taps, double taps and long presses, and the two-finger tap (module doc)."""

    def __init__(self, thresholds: Thresholds, listener: TapListener) -> None:
        self.t = thresholds
        self.listener = listener
        self.down: MotionEvent | None = None
        self.previous_down: MotionEvent | None = None
        self.previous_up: MotionEvent | None = None
        self.tap_pending_until = -math.inf  # the TAP message's time, while it is queued
        self.in_tap_region = self.in_bigger_tap_region = False
        self.long_press_due: float | None = None
        self.in_long_press = self.double_tapping = False
        self.max_pointers = 0
        self.starts: dict[int, tuple[int, int]] = {}

    def on_event(self, event: MotionEvent) -> None:
        self._long_press_by(event.event_ms)
        handler = {ACTION_DOWN: self._down, ACTION_POINTER_DOWN: self._pointer_down, ACTION_MOVE: self._move,
                   ACTION_UP: self._up}.get(event.masked)
        if handler is not None:
            handler(event)

    def _long_press_by(self, now: float) -> None:
        """The LONG_PRESS message fell due before this event: the pointer is in a long press."""
        if self.long_press_due is not None and now >= self.long_press_due and self.down is not None:
            self.long_press_due = None
            self.tap_pending_until = -math.inf  # dispatchLongPress removes the TAP message
            self.in_long_press = True
            _, x, y = self.down.pointers[0]
            if self.listener.on_long_press is not None:
                self.listener.on_long_press(x, y)

    def _down(self, event: MotionEvent) -> None:
        had_tap = event.event_ms < self.tap_pending_until
        self.tap_pending_until = -math.inf
        first = self.down
        self.double_tapping = bool(had_tap and first is not None and self.previous_up is not None
                                   and self._double_tap(first, self.previous_up, event))
        if self.double_tapping:
            _, x, y = event.pointers[0]
            if self.listener.on_double_tap is not None:
                self.listener.on_double_tap(x, y)
        else:
            self.tap_pending_until = event.event_ms + DOUBLE_TAP_TIMEOUT_MS
        self.previous_down, self.down = first, event
        self.in_tap_region = self.in_bigger_tap_region = True
        self.in_long_press = False
        self.long_press_due = event.down_ms + LONG_PRESS_MS
        self.max_pointers = 1
        self.starts = {pid: (x, y) for pid, x, y in event.pointers}

    def _double_tap(self, first_down: MotionEvent, first_up: MotionEvent, second_down: MotionEvent) -> bool:
        """GestureDetector.isConsideredDoubleTap."""
        if not self.in_bigger_tap_region:
            return False
        delta = second_down.event_ms - first_up.event_ms
        if delta > DOUBLE_TAP_TIMEOUT_MS or delta < DOUBLE_TAP_MIN_TIME_MS:
            return False
        (_, x1, y1), (_, x2, y2) = first_down.pointers[0], second_down.pointers[0]
        return (x1 - x2) ** 2 + (y1 - y2) ** 2 < self.t.double_tap_slop ** 2

    def _pointer_down(self, event: MotionEvent) -> None:
        """cancelTaps: a second pointer is no tap, no double tap, no long press."""
        self.max_pointers = max(self.max_pointers, len(event.pointers))
        pid, x, y = event.pointers[event.index]
        self.starts[pid] = (x, y)
        self.tap_pending_until = -math.inf
        self.long_press_due = None
        self.double_tapping = self.in_long_press = False
        self.in_bigger_tap_region = False
        if self.max_pointers > 2:
            self.in_tap_region = False

    def _move(self, event: MotionEvent) -> None:
        if self.down is None:
            return
        if self.in_long_press:
            _, x, y = event.pointers[0]
            if self.listener.on_drag is not None:
                self.listener.on_drag(x, y)
            return
        for pid, x, y in event.pointers:
            sx, sy = self.starts.get(pid, (x, y))
            distance = (x - sx) ** 2 + (y - sy) ** 2
            if distance > self.t.touch_slop ** 2:
                self.in_tap_region = False
                self.tap_pending_until = -math.inf
                self.long_press_due = None
            if pid == self.down.pointers[0][0] and distance > self.t.touch_slop ** 2:
                self.in_bigger_tap_region = False

    def _up(self, event: MotionEvent) -> None:
        self.long_press_due = None
        _, x, y = event.pointers[0]
        quick = event.event_ms - event.down_ms < LONG_PRESS_MS
        if self.in_long_press:
            self.in_long_press = False
            _notify(self.listener.on_drop, x, y)
        elif self.max_pointers == 2 and self.in_tap_region and quick:
            _notify(self.listener.on_two_finger_tap)
        elif self.max_pointers == 1 and self.in_tap_region and not self.double_tapping:
            _notify(self.listener.on_tap, x, y)
        self.previous_up = event


def _notify(callback: Callable[..., None] | None, *args: int) -> None:
    if callback is not None:
        callback(*args)
