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
    """Records each paced streamInputEvent call with its timed frames; fails a chosen call."""

    def __init__(self, fail_call: int | None = None, code: str = "INTERNAL") -> None:
        super().__init__()
        self.fail_call, self.code = fail_call, code
        self.calls: list[list[tuple[float, list[tuple[int, int, bool, int]]]]] = []

    def paced_frames(self, frames: Sequence[tuple[float, Sequence[tuple[int, int, bool, int]]]]) -> None:
        self.calls.append([(at, list(contacts)) for at, contacts in frames])
        if len(self.calls) - 1 == self.fail_call:
            raise ControllerError(f"streamInputEvent failed: {self.code}", code=self.code)


def test_the_frames_move_then_lift_and_press_each_finger_under_its_own_identifier() -> None:
    frames = contact_frames(PINCH)
    assert [(f.at, f.contacts, f.starts) for f in frames] == [
        (0.0, ((400, 1000, True, 0), (600, 1200, True, 1)), True),
        (0.016, ((380, 980, True, 0), (620, 1220, True, 1)), False),
        (0.2, ((300, 900, True, 0), (700, 1300, True, 1)), False),
        (0.26, ((300, 900, False, 0), (700, 1300, False, 1)), False),
    ]


def test_a_double_tap_is_one_paced_call_whose_second_press_keeps_its_gap() -> None:
    """All four frames in one streamInputEvent call, each written at its time: the gap between the
    first lift and the second press is the path's, whatever the emulator takes to answer (waiting
    for its answer between the taps made a starved host miss the double-tap timeout)."""
    controller = Frames()
    assert ControllerGesture(controller).send(contact_frames(DOUBLE_TAP), lambda e: None) == 4
    assert controller.calls == [[
        (0.0, [(540, 900, True, 0)]), (0.05, [(540, 900, False, 0)]),
        (0.15, [(540, 900, True, 0)]), (0.2, [(540, 900, False, 0)])]]


def test_a_failure_after_the_fingers_may_have_landed_lifts_every_one_and_says_so() -> None:
    controller = Frames(fail_call=0)
    with pytest.raises(ControllerError, match="failed"):
        ControllerGesture(controller).send(contact_frames(PINCH), lambda e: None)
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
