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
    """Records each paced streamInputEvent call with its timed frames and when it began; fails a
    chosen call; each call takes the frames' span, or `answer_after` seconds when given."""

    def __init__(self, fail_call: int | None = None, code: str = "INTERNAL", time_: FakeTime | None = None,
                 answer_after: float | None = None) -> None:
        super().__init__()
        self.fail_call, self.code = fail_call, code
        self.time, self.answer_after = time_ or FakeTime(), answer_after
        self.calls: list[list[tuple[float, list[tuple[int, int, bool, int]]]]] = []
        self.began: list[float] = []

    def paced_frames(self, frames: Sequence[tuple[float, Sequence[tuple[int, int, bool, int]]]]) -> None:
        self.calls.append([(at, list(contacts)) for at, contacts in frames])
        self.began.append(self.time.now)
        span = frames[-1][0] - frames[0][0]
        self.time.sleep(span if self.answer_after is None else self.answer_after)
        if len(self.calls) - 1 == self.fail_call:
            raise ControllerError(f"streamInputEvent failed: {self.code}", code=self.code)


def gesture_of(controller: Frames) -> ControllerGesture:
    return ControllerGesture(controller, clock=controller.time.clock, sleep=controller.time.sleep)


def test_the_frames_move_then_lift_and_press_each_finger_under_its_own_identifier() -> None:
    frames = contact_frames(PINCH)
    assert [(f.at, f.contacts, f.starts) for f in frames] == [
        (0.0, ((400, 1000, True, 0), (600, 1200, True, 1)), True),
        (0.016, ((380, 980, True, 0), (620, 1220, True, 1)), False),
        (0.2, ((300, 900, True, 0), (700, 1300, True, 1)), False),
        (0.26, ((300, 900, False, 0), (700, 1300, False, 1)), False),
    ]


def test_a_pinch_is_one_paced_call() -> None:
    controller = Frames()
    assert gesture_of(controller).send(contact_frames(PINCH), lambda e: None) == 4
    assert len(controller.calls) == 1
    assert [at for at, _ in controller.calls[0]] == [0.0, 0.016, 0.2, 0.26]


def test_a_double_tap_is_a_call_a_tap_the_second_written_its_gap_after_the_first_began() -> None:
    """The second press starts a call of its own: the emulator has read the first lift before it
    answers, so the two cannot be read together; an answer as prompt as the frames keeps the path's
    timing (module doc)."""
    controller = Frames()
    assert gesture_of(controller).send(contact_frames(DOUBLE_TAP), lambda e: None) == 4
    assert controller.calls == [
        [(0.0, [(540, 900, True, 0)]), (0.05, [(540, 900, False, 0)])],
        [(0.15, [(540, 900, True, 0)]), (0.2, [(540, 900, False, 0)])]]
    assert controller.began[1] - controller.began[0] == pytest.approx(0.15)


def test_after_a_late_answer_the_second_press_waits_half_its_gap_not_the_whole() -> None:
    """Half the 100 ms gap (50 ms, over GestureDetector's 40 ms minimum) after the answer, which came
    0.3 s after the first call began: most of the 300 ms double-tap timeout is kept for the host's
    delays."""
    controller = Frames(answer_after=0.3)
    gesture_of(controller).send(contact_frames(DOUBLE_TAP), lambda e: None)
    assert len(controller.calls) == 2
    assert controller.began[1] - controller.began[0] == pytest.approx(0.3 + 0.05)


def test_a_failure_after_the_fingers_may_have_landed_lifts_every_one_and_says_so() -> None:
    controller = Frames(fail_call=0)
    with pytest.raises(ControllerError, match="failed"):
        gesture_of(controller).send(contact_frames(PINCH), lambda e: None)
    assert controller.calls[-1] == [(0.0, [(300, 900, False, 0), (700, 1300, False, 1)])], "both fingers lifted"


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
    r = router(Frames(), FakeConnection(), time_)
    r.gesture(PINCH)
    r.gesture(DOUBLE_TAP)
    assert r.counts.controller == 4


def test_a_controller_that_refused_the_first_call_hands_the_gesture_to_the_agent() -> None:
    conn, time_ = FakeConnection(), FakeTime()
    conn.always("gesture", {"accepted": True, "events": 6})
    controller = Frames(fail_call=0, code="UNAVAILABLE")
    ack = router(controller, conn, time_).gesture(PINCH)
    assert ack.path == "agent" and len(conn.sent("gesture")) == 1


def test_an_agent_without_multi_touch_is_not_sent_a_gesture() -> None:
    conn, time_ = FakeConnection(capabilities=("events", "bounds")), FakeTime()
    with pytest.raises(NotSupported, match="multi_touch"):
        router(None, conn, time_).gesture(PINCH)
    assert conn.sent("gesture") == []
