"""The virtual app's fling is Compose's default decay (androidx compose/animation FlingCalculator.kt
and AndroidFlingSpline, ported from android.widget.Scroller): it leaves at the release velocity,
slows to rest along the spline, and goes further and for longer the faster the release, up to
ViewConfiguration's 8,000 dp/s."""

from __future__ import annotations

import pytest

from pytest_mobile_agent.virtual.ui.gestures import MAX_FLING_DP_PER_S, Fling

DPI = 420
DENSITY = DPI / 160


def speed_at(fling: Fling, t_ms: float, step_ms: float = 0.5) -> float:
    """Pixels per millisecond the content moves at `t_ms` into the fling."""
    start = fling.start_ms + t_ms
    return (fling.offset_at(start + step_ms) - fling.offset_at(start)) / step_ms


@pytest.mark.parametrize("release", [0.5, 1.0, 4.0, 10.0])
def test_a_fling_leaves_at_the_release_velocity_and_slows_to_rest(release: float) -> None:
    """Scroller's spline is built so that its slope at the start is the release velocity."""
    fling = Fling.released(0.0, 0.0, release, DPI)
    assert speed_at(fling, 0.0) == pytest.approx(release, rel=0.02)
    speeds = [speed_at(fling, fling.duration_ms * k / 20) for k in range(20)]
    assert all(a >= b for a, b in zip(speeds, speeds[1:], strict=False)), "it only slows down"
    assert speed_at(fling, fling.duration_ms - 1.0) < 0.02 * release, "and comes to rest at its end"
    assert fling.offset_at(fling.done_at()) == pytest.approx(fling.distance)


def test_a_faster_release_flings_further_and_longer_up_to_the_ceiling() -> None:
    """A 600 dp swipe over 300 ms (5.25 px/ms at 420 dpi) flies about as far again in about 0.9 s;
    past 8,000 dp/s (21 px/ms) the velocity tracker's cap holds the fling to the ceiling's."""
    flings = [Fling.released(0.0, 0.0, v, DPI) for v in (1.0, 5.25, 10.0, MAX_FLING_DP_PER_S * DENSITY / 1000)]
    durations = [f.duration_ms for f in flings]
    distances = [f.distance for f in flings]
    assert durations == sorted(durations) and distances == sorted(distances)
    assert 850 < durations[1] < 1000 and 600 < distances[1] / DENSITY < 700
    assert 2400 < durations[-1] < 2700, "the fastest fling takes about 2.6 s, not a fixed 600 ms"
    capped = Fling.released(0.0, 0.0, 40.0, DPI)
    assert (capped.distance, capped.duration_ms) == (flings[-1].distance, flings[-1].duration_ms)
    assert Fling.released(0.0, 0.0, -5.25, DPI).distance == -distances[1], "the sign is the direction"
