"""What one touch is (ui/touch.py) on the event times it is given: the long-press check's time and
verdict, the drag's offsets, what the lift does and when it flings (no I/O, no clock: as
tests/unit/mirror/test_freshness.py tests the mirror's freshness policy)."""

from __future__ import annotations

import pytest

from pytest_mobile_agent.virtual.ui.gestures import LONG_PRESS_MS, Fling
from pytest_mobile_agent.virtual.ui.touch import MIN_FLING_PX_PER_MS, Lift, TouchGesture, fling_goes_on

SLOP = 20
DOWN_MS = 1000.0


def down(x: int = 500, y: int = 1000) -> TouchGesture:
    return TouchGesture(x, y, DOWN_MS, SLOP)


def test_the_long_press_check_falls_due_a_timeout_after_the_down_however_late_it_is_handled() -> None:
    gesture = down()
    assert gesture.long_press_delay(DOWN_MS) == LONG_PRESS_MS
    assert gesture.long_press_delay(DOWN_MS + 200) == LONG_PRESS_MS - 200
    assert gesture.long_press_delay(DOWN_MS + 800) == LONG_PRESS_MS - 800, "handled late: due already"


def test_a_pointer_held_within_the_slop_is_a_long_press_and_its_lift_clicks_nothing() -> None:
    gesture = down()
    assert gesture.move(510, 1010, DOWN_MS + 100)  # within the slop
    assert gesture.check_long_press() and gesture.long_pressed
    assert gesture.lift(510, 1010, DOWN_MS + 700) is Lift.NOTHING


def test_a_pointer_moved_beyond_the_slop_is_no_long_press_and_no_click() -> None:
    gesture = down()
    gesture.move(500 + SLOP + 1, 1000, DOWN_MS + 100)  # sideways: no drag, but no press either
    assert not gesture.check_long_press() and not gesture.long_pressed
    assert gesture.lift(500 + SLOP + 1, 1000, DOWN_MS + 200) is Lift.NOTHING


def test_a_lift_before_the_check_within_the_slop_is_a_click() -> None:
    gesture = down()
    gesture.move(500 + SLOP, 1000 - SLOP, DOWN_MS + 50)  # at the slop's edge: still a press
    assert gesture.lift(500 + SLOP, 1000 - SLOP, DOWN_MS + 100) is Lift.CLICK


def test_a_move_to_the_same_place_is_dropped() -> None:
    gesture = down()
    assert not gesture.move(500, 1000, DOWN_MS + 10)
    assert gesture.tracker.samples == [(DOWN_MS, 500, 1000)]
    assert gesture.move(500, 1001, DOWN_MS + 20)
    assert (gesture.x, gesture.y) == (500, 1001)


def test_a_drag_starts_once_the_pointer_crosses_the_slop_vertically_and_follows_it_from_the_slops_edge() -> None:
    gesture = down()
    gesture.move(500 + SLOP + 5, 1000, DOWN_MS + 10)
    assert gesture.scroll_offset(100.0) is None and not gesture.dragging, "sideways is no vertical drag"
    gesture.move(500, 1000 + SLOP, DOWN_MS + 20)
    assert gesture.scroll_offset(100.0) is None, "at the slop's edge: not yet"
    gesture.move(500, 1050, DOWN_MS + 30)  # down: the content's offset falls as the pointer goes on
    assert gesture.scroll_offset(100.0) == 100.0 + (1000 + SLOP) - 1050 and gesture.dragging
    gesture.move(500, 1100, DOWN_MS + 40)
    assert gesture.scroll_offset(70.0) == 100.0 + (1000 + SLOP) - 1100, "counted from the drag's start"
    assert not gesture.check_long_press(), "a drag is no long press"
    gesture.move(500, 1000, DOWN_MS + 50)  # dragged back to where it went down
    assert gesture.scroll_offset(0.0) == 100.0 + SLOP
    assert not gesture.check_long_press(), "a drag is no long press, even back within the slop"
    up = down()
    up.move(500, 900, DOWN_MS + 10)  # up: the slop's edge is above the DOWN
    assert up.scroll_offset(0.0) == (1000 - SLOP) - 900


def test_a_drag_lifted_while_moving_flings_against_the_pointer() -> None:
    gesture = down()
    for i in range(1, 6):  # 2 px/ms downwards
        gesture.move(500, 1000 + 20 * i, DOWN_MS + 10 * i)
        gesture.scroll_offset(0.0)
    assert gesture.lift(500, 1100, DOWN_MS + 50) is Lift.DRAG_END
    assert gesture.fling_velocity() == pytest.approx(-2.0)


def test_a_drag_that_rests_before_its_lift_or_moves_too_slowly_does_not_fling() -> None:
    resting = down()
    resting.move(500, 1100, DOWN_MS + 10)
    resting.scroll_offset(0.0)
    assert resting.lift(500, 1100, DOWN_MS + 60) is Lift.DRAG_END  # 50 ms still: the tracker forgets
    assert resting.fling_velocity() is None
    slow = down()
    for i in range(1, SLOP + 6):  # 1 px every 30 ms: 0.033 px/ms, never still long enough to be forgotten
        slow.move(500, 1000 + i, DOWN_MS + 30 * i)
        slow.scroll_offset(0.0)
    assert slow.dragging and slow.lift(500, 1000 + SLOP + 5, DOWN_MS + 30 * (SLOP + 5)) is Lift.DRAG_END
    assert 0 < abs(slow.tracker.velocity()[1]) < MIN_FLING_PX_PER_MS
    assert slow.fling_velocity() is None


def test_a_fling_goes_on_until_its_time_is_up_or_the_content_reaches_an_end() -> None:
    fling = Fling.released(0.0, 500.0, 2.0, 420)
    assert fling_goes_on(fling, fling.done_at() - 1, 600.0, 1000.0)
    assert not fling_goes_on(fling, fling.done_at(), 600.0, 1000.0)
    assert not fling_goes_on(fling, 10.0, 1000.0, 1000.0), "the end of the list"
    assert not fling_goes_on(fling, 10.0, 0.0, 1000.0), "the start of the list"
