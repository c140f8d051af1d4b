"""session::input::tests: gestures in pixels to the agent or the controller, keys and text to the agent."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_mobile_agent.errors import AgentError, ControllerError
from pytest_mobile_agent.session.backends import Ack, ReadReason, Release
from pytest_mobile_agent.session.input import REST, InputRouter, one_pixel_on, swipe_path
from pytest_mobile_agent.session.tree import AgentTree
from tests.support.session_fakes import (
    FakeConnection,
    FakeController,
    node,
    snapshot,
    tabs_window,
    window,
)

SCALE = 2.625


class FakeTime:
    """A clock that moves only by the sleeps asked of it (and what a test adds)."""

    def __init__(self) -> None:
        self.now = 100.0
        self.slept: list[float] = []

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(round(seconds, 6))
        self.now += seconds


class SlowController(FakeController):
    """Each touch takes `takes(index, pressed)` seconds of the fake clock; a failure once at `fail_at`."""

    def __init__(self, time_: FakeTime, takes: Any = None, fail_at: int | None = None) -> None:
        super().__init__()
        self.time = time_
        self.takes = takes or (lambda index, pressed: 0.0)
        self.fail_at = fail_at
        self.calls = 0

    def touch(self, x: int, y: int, pressed: bool, identifier: int = 0) -> None:
        self._call(pressed)
        self.touches.append((x, y, pressed))

    def touch_frames(self, frames: Any) -> None:
        self._call(True)
        super().touch_frames(frames)

    def _call(self, pressed: bool) -> None:
        index, self.calls = self.calls, self.calls + 1
        self.time.now += self.takes(index, pressed)
        if index == self.fail_at:
            raise ControllerError("sendTouch failed: UNAVAILABLE: connection reset", code="UNAVAILABLE")


def router(controller: FakeController | None = None, conn: FakeConnection | None = None,
           failures: list[BaseException] | None = None,
           time_: FakeTime | None = None) -> tuple[InputRouter, FakeConnection, list[float]]:
    conn = conn or FakeConnection()
    time_ = time_ or FakeTime()
    tree = AgentTree(conn, lambda: SCALE, capabilities=conn.hello.capabilities, clock=time_.clock, sleep=time_.sleep)
    r = InputRouter(conn, tree, controller, clock=time_.clock, sleep=time_.sleep,
                    on_controller_failure=failures.append if failures is not None else None)
    return r, conn, time_.slept


def test_taps_and_long_presses_go_out_in_the_pixels_they_were_given_rounded() -> None:
    """The seam speaks pixels end to end (issue 38, item 5): the scale (2.625 here) is not applied."""
    r, conn, _ = router()
    r.tap(262.4, 525)
    r.long_press(105, 210.6, hold=0.8)
    assert conn.sent("tap") == [{"x": 262, "y": 525, "hold_ms": 0}, {"x": 105, "y": 211, "hold_ms": 800}]
    assert conn.timeouts("tap") == [5.0, pytest.approx(5.8)]  # 5 s plus the gesture's duration


def test_swipes_keep_their_duration_and_keys_their_code() -> None:
    r, conn, _ = router()
    ack = r.swipe(262, 1575, 262, 525, duration=0.3)
    r.key(4)
    r.key(66, meta=1)
    assert conn.sent("swipe") == [{"x1": 262, "y1": 1575, "x2": 262, "y2": 525, "duration_ms": 300, "rest_ms": 0}]
    assert conn.timeouts("swipe") == [pytest.approx(5.3)]
    assert ack == Ack(accepted=True, path="agent", moves=38)
    assert conn.sent("key") == [{"code": 4, "meta": 0}, {"code": 66, "meta": 1}]


def test_a_swipe_on_the_controller_is_down_moves_and_up_along_the_line() -> None:
    controller = FakeController()
    r, conn, slept = router(controller)
    ack = r.swipe(0, 0, 0, 128, duration=0.032)  # 0 to 128 pixels in 32 ms
    assert controller.touches == [(0, 0, True), (0, 32, True), (0, 64, True), (0, 96, True), (0, 128, True),
                                  (0, 128, False)]
    assert controller.streamed == [[[(0, 0, True)], [(0, 32, True)]]]  # down and past the slop (21 px) in one call
    assert slept == [0.016, 0.008, 0.008]  # then a move every 8 ms from the touch-down
    assert ack == Ack(accepted=True, path="controller", moves=4)
    assert conn.sent("swipe") == [] and r.counts.controller == 1 and r.counts.agent == 0


def test_a_swipe_without_duration_still_moves_once() -> None:
    controller = FakeController()
    r, _, _ = router(controller)
    r.swipe(0, 0, 262, 0, duration=0)
    assert controller.touches == [(0, 0, True), (262, 0, True), (262, 0, False)]
    assert swipe_path((0, 0, 10, 10), 0.0) == [(10, 10)]


def test_a_swipe_released_resting_asks_the_agent_to_rest_60_ms() -> None:
    r, conn, _ = router()
    r.swipe(262, 1575, 262, 525, duration=0.3, release=Release.RESTING)
    assert conn.sent("swipe")[0]["rest_ms"] == 60
    assert conn.timeouts("swipe") == [pytest.approx(5.36)]


def test_a_swipe_released_resting_on_the_controller_rests_then_moves_a_pixel_on_and_lifts() -> None:
    controller = FakeController()
    r, _, slept = router(controller)
    r.swipe(0, 128, 0, 0, duration=0.016, release=Release.RESTING)  # upwards
    assert controller.touches == [(0, 128, True), (0, 64, True), (0, 0, True), (0, -1, True), (0, -1, False)]
    assert slept == [0.016, 0.06]  # the rest comes after the last move, before the pixel on
    assert one_pixel_on((0, 0, 300, 0)) == (1, 0) and one_pixel_on((0, 0, 0, 0)) == (0, 1)


def test_text_names_the_node_of_the_latest_read_and_its_method() -> None:
    conn = FakeConnection()
    field = node(88, None, 0, cls="android.widget.EditText", editable=True, focused=True)
    conn.always("snapshot", snapshot(tabs_window(), window(20, [field])))
    r, _, _ = router(conn=conn)
    r.text("héllo 👋")  # before any read: the agent picks the focused node
    r._tree.read(ReadReason.ATTACH)
    r.text("héllo 👋", method="keys")
    r.text("x", node=3, method="direct")
    assert conn.sent("text") == [
        {"node": None, "text": "héllo 👋", "method": "auto"},
        {"node": 88, "text": "héllo 👋", "method": "keys"},
        {"node": 3, "text": "x", "method": "direct"},
    ]


def test_acknowledgements_carry_the_platforms_verdict_and_the_text_method() -> None:
    conn = FakeConnection()
    conn.script("text", {"accepted": True, "method": "keys"}, {"accepted": True, "method": "clipboard"})
    conn.script("key", {"accepted": False})
    r, _, _ = router(conn=conn)
    assert r.text("abc").method == "keys"
    assert r.text("€").method == "clipboard"
    assert r.key(4) == Ack(accepted=False, path="agent")
    conn.script("tap", AgentError("injection_refused", "enable USB debugging (Security settings)", method="tap"))
    with pytest.raises(AgentError) as info:
        r.tap(1, 1)
    assert info.value.code == "injection_refused"


def test_keys_and_text_stay_with_the_agent_with_a_controller() -> None:
    controller = FakeController(keyboard=True)
    r, conn, _ = router(controller)
    r.key(4)
    r.text("a")
    assert controller.touches == [] and len(conn.sent("key")) == 1 and len(conn.sent("text")) == 1


def test_a_controller_that_fails_before_the_touch_lands_hands_the_input_to_the_agent_for_good() -> None:
    controller = FakeController(fail_at_touch=0)
    failures: list[BaseException] = []
    r, conn, _ = router(controller, failures=failures)
    assert r.long_press(10, 10, hold=0.6).path == "agent"
    controller.fail_at_touch = None
    assert r.swipe(0, 0, 10, 10, 0.1).path == "agent"  # after that, all input goes through the agent
    assert controller.touches == [] and len(conn.sent("tap")) == 1 and len(conn.sent("swipe")) == 1
    assert isinstance(r.controller_failure, ControllerError) and failures == [r.controller_failure]


def test_a_controller_that_fails_after_the_touch_landed_reports_it_and_moves_on_to_the_agent() -> None:
    time_ = FakeTime()
    controller = SlowController(time_, fail_at=1)
    r, conn, _ = router(controller, time_=time_)
    with pytest.raises(ControllerError, match="UNAVAILABLE"):
        r.long_press(10, 10, hold=0.6)
    assert conn.sent("tap") == []  # half a long press landed: not sent twice
    assert r.long_press(10, 10, hold=0.6).path == "agent"


# --- a host that stalls (issue 19 items 6 and 12) ---------------------------------------------------


def test_a_tap_on_the_controller_is_one_call_carrying_the_press_and_the_lift() -> None:
    """Item 12 of issue 19: down and up as two sendTouch calls held the press as long as the host
    stalled between them (601 to 807 ms under a CPU quota): a long press, and the click lost,
    reported accepted. Issue 27: the seed's fast path again, as one streamInputEvent call (two
    TouchEvents, each its own input frame on the guest), so no stall of this host sits between them."""
    time_ = FakeTime()
    controller = SlowController(time_, takes=lambda index, pressed: 0.7 if pressed else 0.0)  # a stalling sendTouch
    r, conn, _ = router(controller, time_=time_)
    ack = r.tap(262, 525)
    assert ack == Ack(accepted=True, path="controller")
    assert controller.taps == [(262, 525)] and controller.calls == 0, "no sendTouch: one streamed tap"
    assert conn.sent("tap") == [] and r.counts.controller == 1 and r.counts.agent == 0


def test_a_tap_the_controller_refused_unread_goes_to_the_agent_and_one_that_may_have_landed_is_lifted() -> None:
    controller = FakeController(fail_at_touch=0)
    failures: list[BaseException] = []
    r, conn, _ = router(controller, failures=failures)
    assert r.tap(26, 26).path == "agent"  # UNAVAILABLE: the emulator read nothing of it
    assert conn.sent("tap") == [{"x": 26, "y": 26, "hold_ms": 0}] and failures == [r.controller_failure]
    timed_out = FakeController()

    def hangs(x: int, y: int, identifier: int = 0) -> None:
        raise ControllerError("the controller's streamInputEvent timed out", code="DEADLINE_EXCEEDED")

    timed_out.tap = hangs  # type: ignore[method-assign]
    r, conn, _ = router(timed_out)
    with pytest.raises(ControllerError, match="timed out"):
        r.tap(26, 26)
    assert timed_out.touches == [(26, 26, False)], "lifted where it may have gone down"
    assert conn.sent("tap") == [], "not sent twice"


def test_a_resting_release_rests_after_the_last_moves_answer_however_late_the_moves_went_out() -> None:
    """A host behind its schedule (each move's answer 20 ms, so the 38 moves end 0.46 s late) still
    rests 60 ms after the last move's answer: the emulator handled that move before answering, so it
    sees the pointer still before the pixel on, and the release does not fling."""
    time_ = FakeTime()
    controller = SlowController(time_, takes=lambda index, pressed: 0.02)
    r, _, slept = router(controller, time_=time_)
    r.swipe(0, 0, 0, 1575, duration=0.3, release=Release.RESTING)
    assert slept[-1] == pytest.approx(REST)


def test_moves_are_timed_from_the_touch_down_not_after_each_answer() -> None:
    """Item 6: an 8 ms sleep plus each move's round trip made a 300 ms swipe take 392 to 416 ms."""
    time_ = FakeTime()
    controller = SlowController(time_, takes=lambda index, pressed: 0.003)  # every sendTouch takes 3 ms
    r, _, slept = router(controller, time_=time_)
    started = time_.now
    ack = r.swipe(0, 0, 0, 1575, duration=0.3)
    assert ack.accepted and ack.moves == 38
    # 38 moves 8 ms apart from the touch-down, plus two answers: the last move's and the up's
    assert time_.now - started == pytest.approx(38 * 0.008 + 2 * 0.003)
    assert all(s == pytest.approx(0.005) for s in slept[1:])  # 8 ms from the last move's time, less its answer


def test_a_swipes_touch_down_and_its_moves_past_the_touch_slop_go_in_one_call() -> None:
    """A pointer still past the long-press timeout is a long press, its drag no swipe (issue 19 item
    12's hazard at a swipe's start): the down and the moves that take the pointer past 8 dp travel
    together, so a host that stalls 0.5 s on every sendTouch cannot hold the pointer still there."""
    time_ = FakeTime()
    controller = SlowController(time_, takes=lambda index, pressed: 0.5 if index > 0 else 0.0)
    r, _, _ = router(controller, time_=time_)
    ack = r.swipe(0, 0, 600, 0, duration=0.24)  # 30 moves of 20 px: the second is past 21 px
    assert ack == Ack(accepted=True, path="controller", moves=30)
    assert controller.streamed == [[[(0, 0, True)], [(20, 0, True)], [(40, 0, True)]]]
    assert controller.touches[-1] == (600, 0, False)


def test_a_failure_after_the_touch_down_still_lifts_the_pointer() -> None:
    """Item 6: a failure after the touch-down left pointer 0 pressed for the next user of the device."""
    time_ = FakeTime()
    controller = SlowController(time_, fail_at=3)  # the third move fails
    r, _, _ = router(controller, time_=time_)
    with pytest.raises(ControllerError, match="UNAVAILABLE"):
        r.swipe(0, 0, 0, 1575, duration=0.3)
    *_, last = controller.touches
    assert last == (controller.touches[-2][0], controller.touches[-2][1], False)  # lifted where it was
    assert [t for t in controller.touches if not t[2]] == [last]


def test_a_swipe_whose_opening_the_controller_refused_unread_goes_to_the_agent() -> None:
    controller = FakeController(fail_at_touch=0)
    r, conn, _ = router(controller, failures=[])
    assert r.swipe(0, 0, 0, 100, duration=0.1).path == "agent"
    assert controller.touches == [] and len(conn.sent("swipe")) == 1


@pytest.mark.parametrize("code", ["PERMISSION_DENIED", "UNIMPLEMENTED", "UNAUTHENTICATED"])
def test_a_streamed_tap_the_emulator_refused_unread_goes_to_the_agent(code: str) -> None:
    """An emulator whose static token's allowlist does not name streamInputEvent (AOSP's
    emulator_access.json before commit 7af5b942), or that lacks the method: nothing landed."""
    controller = FakeController()

    def refused(x: int, y: int, identifier: int = 0) -> None:
        raise ControllerError(f"the controller's streamInputEvent failed: {code}", code=code)

    controller.tap = refused  # type: ignore[method-assign]
    r, conn, _ = router(controller, failures=[])
    assert r.tap(26, 26).path == "agent"
    assert controller.touches == [] and conn.sent("tap") == [{"x": 26, "y": 26, "hold_ms": 0}]
