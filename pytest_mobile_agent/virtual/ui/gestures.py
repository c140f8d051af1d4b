"""Touch gestures' physics: Android's velocity tracker and the fling after a release (what a touch
is, a tap, a long press or a drag, is ui/touch.py).

Android's velocity tracker takes a pointer that has not moved for 40 ms as stopped when its next
event comes (the "assume stopped" horizon), so a swipe that rests before it lifts releases at zero
velocity and the content stops where the pointer left it; a release while moving flings further.

The fling is Compose's default (`DefaultFlingBehavior` with `splineBasedDecay`): androidx
compose/animation `FlingCalculator.kt` and `AndroidFlingSpline`, "ported from
android.widget.Scroller", so a View's OverScroller flings the same way. Its distance and duration
grow with the release velocity: at 420 dpi a 600 dp swipe over 300 ms flings about 650 dp in 0.9 s,
one at the 8,000 dp/s ceiling about 7,200 dp in 2.6 s, unless the list's end stops it first.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

ASSUME_STOPPED_MS = 40.0
VELOCITY_HORIZON_MS = 100.0
LONG_PRESS_MS = 500.0
SCROLL_FRICTION = 0.015  # ViewConfiguration.getScrollFriction(), Compose's platformFlingScrollFriction
MAX_FLING_DP_PER_S = 8000.0  # ViewConfiguration's MAXIMUM_FLING_VELOCITY, the velocity tracker's cap
_GRAVITY_EARTH = 9.80665
_INCHES_PER_METER = 39.37
_PHYSICAL_COEFFICIENT = 0.84  # FlingCalculator's computeDeceleration(0.84f, density)
_DECELERATION_RATE = math.log(0.78) / math.log(0.9)
_INFLECTION, _START_TENSION, _END_TENSION = 0.35, 0.5, 1.0
_SPLINE_SAMPLES = 100


@dataclass
class VelocityTracker:
    samples: list[tuple[float, float, float]] = field(default_factory=list)  # t_ms, x, y

    def add(self, t_ms: float, x: float, y: float) -> None:
        if self.samples and t_ms - self.samples[-1][0] > ASSUME_STOPPED_MS:
            self.samples.clear()  # the pointer was still: forget the motion before the pause
        self.samples.append((t_ms, x, y))
        cutoff = t_ms - VELOCITY_HORIZON_MS
        while len(self.samples) > 2 and self.samples[0][0] < cutoff:
            self.samples.pop(0)

    def velocity(self) -> tuple[float, float]:
        """Pixels per millisecond over the recent samples; zero with fewer than two."""
        if len(self.samples) < 2:
            return 0.0, 0.0
        t0, x0, y0 = self.samples[0]
        t1, x1, y1 = self.samples[-1]
        dt = t1 - t0
        if dt <= 0:
            return 0.0, 0.0
        return (x1 - x0) / dt, (y1 - y0) / dt


def _spline_positions(samples: int) -> list[float]:
    """The distance covered at each of `samples` + 1 evenly spaced instants of a fling, from 0 to 1:
    the Scroller spline (the tension curves that cross at the inflection), solved by bisection."""
    p1, p2 = _START_TENSION * _INFLECTION, 1.0 - _END_TENSION * (1.0 - _INFLECTION)
    positions, x_min = [], 0.0
    for i in range(samples):
        alpha, x_max = i / samples, 1.0
        while True:
            x = x_min + (x_max - x_min) / 2
            coefficient = 3 * x * (1 - x)
            t = coefficient * ((1 - x) * p1 + x * p2) + x ** 3
            if abs(t - alpha) < 1e-5:
                break
            x_max, x_min = (x, x_min) if t > alpha else (x_max, x)
        positions.append(coefficient * ((1 - x) * _START_TENSION + x) + x ** 3)
    return [*positions, 1.0]


_SPLINE = _spline_positions(_SPLINE_SAMPLES)


def _spline_at(progress: float) -> float:
    """How much of the fling's distance is covered at `progress` (0 to 1) of its duration."""
    index = int(_SPLINE_SAMPLES * progress)
    if index >= _SPLINE_SAMPLES:
        return 1.0
    low = _SPLINE[index]
    return low + (progress - index / _SPLINE_SAMPLES) * (_SPLINE[index + 1] - low) * _SPLINE_SAMPLES


@dataclass
class Fling:
    """A decelerating scroll: `distance` pixels of content (signed) over `duration_ms`, along the spline."""

    start_ms: float
    start_offset: float
    distance: float
    duration_ms: float

    @classmethod
    def released(cls, start_ms: float, start_offset: float, velocity_px_per_ms: float, dpi: int) -> Fling:
        """The fling a release at `velocity_px_per_ms` (positive: the content's offset grows) starts."""
        density = dpi / 160
        px_per_s = min(abs(velocity_px_per_ms) * 1000, MAX_FLING_DP_PER_S * density)
        deceleration = SCROLL_FRICTION * _GRAVITY_EARTH * _INCHES_PER_METER * density * 160 * _PHYSICAL_COEFFICIENT
        spline = math.log(_INFLECTION * px_per_s / deceleration)
        duration_ms = 1000 * math.exp(spline / (_DECELERATION_RATE - 1))
        distance = deceleration * math.exp(_DECELERATION_RATE / (_DECELERATION_RATE - 1) * spline)
        return cls(start_ms, start_offset, math.copysign(distance, velocity_px_per_ms), duration_ms)

    def offset_at(self, t_ms: float) -> float:
        progress = min(1.0, max(0.0, (t_ms - self.start_ms) / self.duration_ms))
        return self.start_offset + self.distance * _spline_at(progress)

    def done_at(self) -> float:
        return self.start_ms + self.duration_ms
