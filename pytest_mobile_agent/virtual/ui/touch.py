"""What one touch is, on the event times it is given: a tap, a long press, a drag, a fling.

No I/O, no timers and no clock of its own, as `mirror.freshness.Freshness`: the UI model
(ui/model.py) hands a `TouchGesture` each event of the pointer with its event time and the model
time it is handled at, asks it when the long-press check falls due, whether the check finds a long
press, where a drag scrolls the content to and what the lift is, and does the posting, hit-testing,
scrolling and clicking itself. The rules are View.onTouchEvent's (frameworks/base,
core/java/android/view/View.java, Android 13-16): ACTION_DOWN posts the long-press check
(`checkForLongClick`) a long-press timeout after the DOWN's event time; a pointer that moved beyond
the touch slop (ViewConfiguration.getScaledTouchSlop) is no press; ACTION_UP on a press that was no
long press clicks. A scrolling container (ScrollView.onTouchEvent, Compose's scrollable) starts a drag
once the pointer crossed the slop along its axis, from where it crossed it, and a lift at a velocity
of at least ViewConfiguration.getScaledMinimumFlingVelocity flings.
"""

from __future__ import annotations

import enum

from pytest_mobile_agent.virtual.ui.gestures import LONG_PRESS_MS, Fling, VelocityTracker

MIN_FLING_PX_PER_MS = 0.13
"""Android's minimum fling velocity: 50 dp/s (ViewConfiguration.MINIMUM_FLING_VELOCITY)."""
FLING_FRAME_MS = 16.0
"""A fling moves the content once a frame (Choreographer's 60 Hz vsync)."""


class Lift(enum.Enum):
    """What the lift of a touch does."""

    CLICK = "click"
    """A press that stayed within the slop and was no long press: the node under the DOWN clicks."""
    DRAG_END = "drag end"
    """A drag ends: it flings when `TouchGesture.fling_velocity` says so."""
    NOTHING = "nothing"
    """A long press already handled, or a pointer that moved beyond the slop without dragging."""


class TouchGesture:
    """One pointer from down to up (it replaces MotionEvent's and View's state for a single pointer)."""

    def __init__(self, x: int, y: int, down_ms: float, slop: int) -> None:
        """A DOWN at (`x`, `y`) at event time `down_ms`; `slop` is the touch slop in pixels."""
        self.down_x, self.down_y, self.down_ms = x, y, down_ms
        self.x, self.y = x, y
        self.slop = slop
        self.tracker = VelocityTracker()
        self.tracker.add(down_ms, x, y)
        self.dragging = False
        self.long_pressed = False
        #: the pending long-press check's timer token (the model's), dropped when the pointer lifts
        self.long_press_token: object = None
        self._drag_offset0 = 0.0  # the content's offset when the drag began
        self._drag_y0 = 0  # where the pointer crossed the slop

    # --- the long press -----------------------------------------------------------------------------

    def long_press_delay(self, now: float) -> float:
        """How long after `now` the long-press check falls due: a long-press timeout after the DOWN's
        event time, however late the DOWN is handled (negative: due already)."""
        return LONG_PRESS_MS - (now - self.down_ms)

    def check_long_press(self) -> bool:
        """The check is due: a long press when the pointer neither drags nor moved beyond the slop
        (it is then one, and its lift clicks nothing)."""
        if self.dragging or self.moved_beyond_slop():
            return False
        self.long_pressed = True
        return True

    # --- moves --------------------------------------------------------------------------------------

    def move(self, x: int, y: int, t: float) -> bool:
        """The pointer is at (`x`, `y`) at event time `t`; False: the same place, the event dropped
        (evdev drops a position equal to the last one)."""
        if (x, y) == (self.x, self.y):
            return False
        self.x, self.y = x, y
        self.tracker.add(t, x, y)
        return True

    def moved_beyond_slop(self) -> bool:
        return abs(self.x - self.down_x) > self.slop or abs(self.y - self.down_y) > self.slop

    def scroll_offset(self, offset: float) -> float | None:
        """Over a scrolling container whose content is at `offset` now: the offset the content
        follows the pointer to, or None while the pointer has not crossed the slop vertically. The
        drag starts from the slop's edge, so the content does not jump by the slop."""
        if not self.dragging and abs(self.y - self.down_y) > self.slop:
            self.dragging = True
            self._drag_offset0 = offset
            self._drag_y0 = self.down_y + (self.slop if self.y > self.down_y else -self.slop)
        if not self.dragging:
            return None
        return self._drag_offset0 + (self._drag_y0 - self.y)

    # --- the lift -----------------------------------------------------------------------------------

    def lift(self, x: int, y: int, t: float) -> Lift:
        """The UP at (`x`, `y`) at event time `t` (after its `move`): what it does."""
        self.tracker.add(t, x, y)
        if self.dragging:
            return Lift.DRAG_END
        if self.long_pressed or self.moved_beyond_slop():
            return Lift.NOTHING
        return Lift.CLICK

    def fling_velocity(self) -> float | None:
        """After a drag's lift: the velocity the content flings at (px/ms, positive: its offset grows,
        against the pointer), or None when the pointer was too slow (or rested before it lifted)."""
        _, vy = self.tracker.velocity()
        return -vy if abs(vy) >= MIN_FLING_PX_PER_MS else None


def fling_goes_on(fling: Fling, now: float, offset: float, max_offset: float) -> bool:
    """After a fling's frame at `now` left the content at `offset`: whether another frame follows
    (the fling has time left and the content has not reached either end)."""
    return now < fling.done_at() and 0 < offset < max_offset
