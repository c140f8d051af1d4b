"""When the status bar clock shows a new minute, on the times it is given.

No I/O and no clock of its own, as `ui/touch.TouchGesture`: the UI model (ui/model.py) asks it at
each look what the clock shows now and when the next minute falls due, and changes the clock's node
itself. SystemUI's Clock view (frameworks/base, packages/SystemUI/src/com/android/systemui/statusbar/
policy/Clock.java) redraws on ACTION_TIME_TICK, which the system sends at each minute's start.
"""

from __future__ import annotations

from pytest_mobile_agent.virtual.ui.system import clock_text


class StatusClock:
    """The minute the status bar clock shows."""

    def __init__(self, wall: float) -> None:
        """Showing the minute of `wall` (seconds since the epoch)."""
        self.text = clock_text(wall)

    def tick(self, wall: float) -> str | None:
        """At `wall`: the clock's new text when its minute changed (it then shows it), else None."""
        text = clock_text(wall)
        if text == self.text:
            return None
        self.text = text
        return text

    @staticmethod
    def next_minute_ms(now_ms: float, wall: float) -> float:
        """The model time (`now_ms` is model time at wall time `wall`) the next minute starts at."""
        return now_ms + (60.0 - wall % 60.0) * 1000.0
