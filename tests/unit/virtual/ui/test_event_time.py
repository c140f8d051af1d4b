"""The UI model handles input and timers in event-time order, as an app's Looper handles its
messages by `when` (MessageQueue.enqueueMessage/next): an injected MotionEvent carries its event
time, and View.checkForLongClick posts the long-press check by the long-press timeout from the DOWN.
So a DOWN and an UP queued together are a tap however late the model gets to them, and a press
whose UP is due after the timeout is a long press."""

from __future__ import annotations

import threading
import time

import pytest

from pytest_mobile_agent.virtual.ui import ManualClock, UiModel
from pytest_mobile_agent.virtual.ui.gestures import LONG_PRESS_MS
from pytest_mobile_agent.virtual.ui.looper import MessageQueue
from pytest_mobile_agent.virtual.ui.node import Node, Window
from pytest_mobile_agent.virtual.ui.system import LAYER_APP
from tests.support.press_counter import Button, X, Y


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


def test_messages_come_out_by_when_then_by_the_order_they_were_posted() -> None:
    queue = MessageQueue()
    handled: list[str] = []
    for when, name in ((30.0, "c"), (10.0, "a"), (10.0, "b"), (20.0, "timer")):
        queue.post(when, lambda name=name: handled.append(name))
    assert queue.next_when() == 10.0
    while (handler := queue.pop_due(25.0)) is not None:
        handler()
    assert handled == ["a", "b", "timer"]
    assert queue.next_when() == 30.0 and queue.pop_due(29.0) is None


def test_a_removed_message_never_runs_and_the_others_keep_their_order() -> None:
    queue = MessageQueue()
    handled: list[str] = []
    tokens = {name: queue.post(when, lambda name=name: handled.append(name)) for when, name in
              ((10.0, "a"), (20.0, "b"), (30.0, "c"), (40.0, "d"))}
    queue.remove(tokens["b"])
    queue.remove(tokens["b"])  # twice: the second finds nothing and changes nothing
    while (handler := queue.pop_due(100.0)) is not None:
        handler()
    assert handled == ["a", "c", "d"] and not queue


def test_a_lifted_pointer_leaves_no_long_press_check_behind(clock: ManualClock) -> None:
    """ACTION_UP removes the pending long-press check (View.onTouchEvent: removeLongPressCallback), so
    a run of taps leaves no timers queued, however fast they come."""
    ui = UiModel(clock)
    button = Button(ui)
    for _ in range(20):
        ui.touches([(X, Y, True, None), (X, Y, False, None)])
        clock.advance(5)
    assert button.clicks == 20
    assert ui.next_due_ms() > clock.now_ms() + LONG_PRESS_MS  # only the status bar clock's next minute


def test_a_down_and_an_up_queued_together_are_a_tap_however_late_they_are_handled(clock: ManualClock) -> None:
    ui = UiModel(clock)
    button = Button(ui)
    t0 = clock.now_ms()
    clock.advance(800)  # the model gets to them 800 ms after their event time, past the 500 ms timeout
    ui.touches([(X, Y, True, t0), (X, Y, False, t0)])
    clock.advance(1000)
    ui.advance()
    assert (button.clicks, button.long_clicks) == (1, 0)


def test_an_up_that_comes_after_the_long_press_timeout_is_a_long_press(clock: ManualClock) -> None:
    """The same late handling, but the UP arrives late too: the long-press check was due first."""
    ui = UiModel(clock)
    button = Button(ui)
    t0 = clock.now_ms()
    ui.touch(X, Y, True, t0)
    clock.advance(800)
    ui.touch(X, Y, False)
    assert (button.clicks, button.long_clicks) == (0, 1)


def test_an_up_queued_ahead_at_its_own_time_waits_for_it(clock: ManualClock) -> None:
    """A press held 700 ms, queued at once: the long-press check (at 500 ms) runs before the UP."""
    ui = UiModel(clock)
    button = Button(ui)
    t0 = clock.now_ms()
    ui.touches([(X, Y, True, t0), (X, Y, False, t0 + 700)])
    assert ui.stacked_windows() and (button.clicks, button.long_clicks) == (0, 0)
    clock.advance(LONG_PRESS_MS)
    ui.advance()
    assert button.long_clicks == 1
    clock.advance(200)
    ui.advance()
    assert (button.clicks, button.long_clicks) == (0, 1)
    assert ui.next_due_ms() > clock.now_ms(), "nothing is left queued but the clock's next minute"


def test_a_tap_queued_while_the_ui_thread_is_stalled_stays_a_tap() -> None:
    """On the real clock: the model's lock held for 800 ms (a starved host: the UI thread does not
    run) while the DOWN and UP wait, both stamped before the stall."""
    ui = UiModel()
    button = Button(ui)
    t0 = ui.now_ms()
    with ui.lock:
        tapping = threading.Thread(target=ui.touches, args=([(X, Y, True, t0), (X, Y, False, t0)],))
        tapping.start()
        time.sleep(0.8)
    tapping.join(5)
    time.sleep(0.05)
    ui.advance()
    assert (button.clicks, button.long_clicks) == (1, 0)


def test_a_key_injected_asynchronously_is_handled_after_the_call_returns(clock: ManualClock) -> None:
    """INJECT_INPUT_EVENT_MODE_ASYNC: queued, handled at the next look at the screen; the
    wait-for-finish form (`key`) is handled, with what was queued before it, when it returns."""
    ui = UiModel(clock, ticker=False)
    field = Node("android.widget.EditText", (0, 0, 100, 100), editable=True, focusable=True, text="")
    window = Window(type="application", title="Form", package="dev.test", layer=LAYER_APP,
                    bounds=(0, 0, ui.geo.width, ui.geo.height), sends_change_events=True)
    window.root.add(field)
    ui.add_window(window)
    ui.focus(field)
    assert ui.inject_key(29) is True  # KEYCODE_A
    assert field.text == "", "not handled yet: the app handles it after the injecting call returned"
    assert ui.key(30) is True  # KEYCODE_B, waiting for the app: the A before it is handled first
    assert field.text == "ab"
    ui.inject_key(31)
    ui.windows()  # a look at the screen lets the app handle what is queued
    assert field.text == "abc"


def test_a_touchscreen_touch_keeps_the_time_it_arrived_while_the_ui_thread_is_busy() -> None:
    """The kernel stamps a touch when it arrives, whatever the app does: a lift posted while the model's
    lock is held past the long-press timeout is handled at its own time, before the long-press check."""
    ui = UiModel()
    button = Button(ui)
    ui.post_touches([(X, Y, True, None)]).wait(5.0)
    with ui.lock:
        lifted = ui.post_touches([(X, Y, False, None)])
        time.sleep(LONG_PRESS_MS / 1000 + 0.3)
    assert lifted.wait(5.0)
    assert (button.clicks, button.long_clicks) == (1, 0)


def test_without_timer_threads_a_touchscreen_touch_is_handled_at_once(clock: ManualClock) -> None:
    ui = UiModel(clock, ticker=False)
    button = Button(ui)
    assert ui.post_touches([(X, Y, True, None)]).is_set()
    clock.advance(50)
    assert ui.post_touches([(X, Y, False, None)]).is_set()
    assert (button.clicks, button.long_clicks) == (1, 0)
