"""Touch gestures: the pointer's path, Android's velocity tracker, and the fling after a release.

Android's velocity tracker takes a pointer that has not moved for 40 ms as stopped when its next
event comes (the "assume stopped" horizon), so a swipe that rests before it lifts releases at zero
velocity and the content stops where the pointer left it; a release while moving flings further.
"""

from __future__ import annotations

from dataclasses import dataclass, field

ASSUME_STOPPED_MS = 40.0
VELOCITY_HORIZON_MS = 100.0
LONG_PRESS_MS = 500.0
#: A fling travels this many milliseconds of the release velocity (a 600 dp swipe over 300 ms
#: flings about another 600 dp, as Compose's default decay does on the API 36 emulator).
FLING_FACTOR_MS = 320.0
FLING_DURATION_MS = 600.0


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


@dataclass
class Pointer:
    """One touch from down to up."""

    down_x: int
    down_y: int
    down_ms: float
    x: int
    y: int
    tracker: VelocityTracker = field(default_factory=VelocityTracker)
    dragging: bool = False
    long_pressed: bool = False
    #: the scroll position at the moment the drag crossed the slop, and where the pointer was then
    drag_origin_y: int = 0
    #: the pending long-press check's timer token, dropped when the pointer lifts
    long_press_check: object = None

    def moved_beyond(self, slop: int) -> bool:
        return abs(self.x - self.down_x) > slop or abs(self.y - self.down_y) > slop


@dataclass
class Fling:
    """A decelerating scroll: `distance` pixels of content over `duration_ms`, ease-out."""

    start_ms: float
    start_offset: float
    distance: float
    duration_ms: float = FLING_DURATION_MS

    def offset_at(self, t_ms: float) -> float:
        f = min(1.0, max(0.0, (t_ms - self.start_ms) / self.duration_ms))
        return self.start_offset + self.distance * (1 - (1 - f) ** 2)

    def done_at(self) -> float:
        return self.start_ms + self.duration_ms


def fling_distance(velocity_px_per_ms: float) -> float:
    return velocity_px_per_ms * FLING_FACTOR_MS
