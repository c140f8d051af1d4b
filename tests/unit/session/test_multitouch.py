"""Several fingers to the agent or the controller (session/multitouch.py): the controller's frames
and their schedule, the fingers lifted after a failure, the agent's request and its capability."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from pytest_mobile_agent.errors import ControllerError, NotSupported
from pytest_mobile_agent.session.input import InputRouter
from pytest_mobile_agent.session.multitouch import ControllerGesture, contact_frames, wire_paths
from pytest_mobile_agent.session.tree import AgentTree
from tests.support.session_fakes import FakeConnection, FakeController

PINCH = [((400, 1000, 0.0), (380, 980, 0.016), (300, 900, 0.2), (300, 900, 0.26)),
         ((600, 1200, 0.0), (620, 1220, 0.016), (700, 1300, 0.2), (700, 1300, 0.26))]
DOUBLE_TAP = [((540, 900, 0.0), (540, 900, 0.05)), ((540, 900, 0.15), (540, 900, 0.2))]


class FakeTime:
    def __init__(self) -> None:
        self.now = 100.0

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


class Frames(FakeController):
    """Records each streamInputEvent call with its contacts and when it went out; fails a chosen call."""

    def __init__(self, time_: FakeTime, fail_call: int | None = None, code: str = "INTERNAL") -> None:
        super().__init__()
        self.time, self.fail_call, self.code = time_, fail_call, code
        self.calls: list[tuple[float, list[list[tuple[int, int, bool, int]]]]] = []

    def touch_frames(self, frames: Sequence[Sequence[tuple[int, int, bool, int]]]) -> None:
        if len(self.calls) == self.fail_call:
            self.calls.append((self.time.now, []))
            raise ControllerError(f"streamInputEvent failed: {self.code}", code=self.code)
        self.calls.append((self.time.now, [list(frame) for frame in frames]))


def test_the_frames_move_then_lift_and_press_each_finger_under_its_own_identifier() -> None:
    frames = contact_frames(PINCH)
    assert [(f.at, f.contacts, f.starts) for f in frames] == [
        (0.0, ((400, 1000, True, 0), (600, 1200, True, 1)), True),
        (0.016, ((380, 980, True, 0), (620, 1220, True, 1)), False),
        (0.2, ((300, 900, True, 0), (700, 1300, True, 1)), False),
        (0.26, ((300, 900, False, 0), (700, 1300, False, 1)), False),
    ]


def test_a_double_tap_is_each_tap_in_one_call_the_second_its_gap_after_the_first_was_read() -> None:
    time_ = FakeTime()
    controller = Frames(time_)
    sent = ControllerGesture(controller, time_.clock, time_.sleep).send(contact_frames(DOUBLE_TAP), lambda e: None)
    assert sent == 4
    assert [(round(at - 100, 3), calls) for at, calls in controller.calls] == [
        (0.0, [[(540, 900, True, 0)], [(540, 900, False, 0)]]),
        (0.1, [[(540, 900, True, 0)], [(540, 900, False, 0)]]),  # 100 ms from the lift the answer says was read
    ]


def test_a_failure_after_the_fingers_landed_lifts_them_and_says_so() -> None:
    time_ = FakeTime()
    controller = Frames(time_, fail_call=1)
    with pytest.raises(ControllerError, match="failed"):
        ControllerGesture(controller, time_.clock, time_.sleep).send(contact_frames(PINCH), lambda e: None)
    # the failed call may have moved them: lifted where it would have put them
    assert controller.calls[-1][1] == [[(300, 900, False, 0), (700, 1300, False, 1)]], "both fingers lifted"


def router(controller: FakeController | None, conn: FakeConnection, time_: FakeTime) -> InputRouter:
    tree = AgentTree(conn, lambda: 2.625, capabilities=conn.hello.capabilities, clock=time_.clock, sleep=time_.sleep)
    return InputRouter(conn, tree, controller, clock=time_.clock, sleep=time_.sleep,
                       capabilities=conn.hello.capabilities)


def test_through_the_agent_a_gesture_is_one_request_in_pixels_and_milliseconds() -> None:
    conn, time_ = FakeConnection(), FakeTime()
    conn.always("gesture", {"accepted": True, "events": 6})
    ack = router(None, conn, time_).gesture(PINCH)
    assert ack.accepted and ack.path == "agent"
    assert conn.sent("gesture") == [{"paths": wire_paths(PINCH)}]
    assert wire_paths(PINCH)[0][1] == [380, 980, 16]
    assert conn.timeouts("gesture") == [pytest.approx(5.26)]


def test_each_finger_through_the_controller_counts_as_a_contact_the_session_sent() -> None:
    """The foreign-input watch takes every contact beyond those the session sent for another user's
    (plugin/foreign_input.py): a pinch starts two, a double tap two."""
    time_ = FakeTime()
    r = router(Frames(time_), FakeConnection(), time_)
    r.gesture(PINCH)
    r.gesture(DOUBLE_TAP)
    assert r.counts.controller == 4


def test_a_controller_that_refused_the_first_call_hands_the_gesture_to_the_agent() -> None:
    conn, time_ = FakeConnection(), FakeTime()
    conn.always("gesture", {"accepted": True, "events": 6})
    controller = Frames(time_, fail_call=0, code="UNAVAILABLE")
    ack = router(controller, conn, time_).gesture(PINCH)
    assert ack.path == "agent" and len(conn.sent("gesture")) == 1


def test_an_agent_without_multi_touch_is_not_sent_a_gesture() -> None:
    conn, time_ = FakeConnection(capabilities=("events", "bounds")), FakeTime()
    with pytest.raises(NotSupported, match="multi_touch"):
        router(None, conn, time_).gesture(PINCH)
    assert conn.sent("gesture") == []


class SlowFirstCall(Frames):
    """The first call takes `delay` seconds to reach the emulator (a starved host)."""

    def __init__(self, time_: FakeTime, delay: float) -> None:
        super().__init__(time_)
        self.delay = delay

    def touch_frames(self, frames: Sequence[Sequence[tuple[int, int, bool, int]]]) -> None:
        if not self.calls:
            self.time.now += self.delay
        super().touch_frames(frames)


def test_a_drag_holds_its_whole_hold_after_the_press_landed_however_slow_the_press_went_out() -> None:
    """Under a CPU quota a controller drag did not reorder the list once in 5 runs: its moves were
    timed from before the press went out, so a press that reached the emulator late was held less
    than the long-press timeout before the finger moved, and the list took no long press."""
    time_ = FakeTime()
    controller = SlowFirstCall(time_, delay=0.15)
    drag = [((540, 500, 0.0), (540, 500, 0.6), (540, 530, 0.616), (540, 900, 1.1), (540, 900, 1.16))]
    ControllerGesture(controller, time_.clock, time_.sleep).send(contact_frames(drag), lambda e: None)
    pressed_at, first = controller.calls[0]
    assert first == [[(540, 500, True, 0)]], "the press alone: the first move comes 616 ms later"
    assert controller.calls[1][0] - pressed_at >= 0.616 - 1e-9
