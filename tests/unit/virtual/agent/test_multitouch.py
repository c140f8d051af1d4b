"""The agent double's `gesture`: finger paths to the MotionEvents the Java agent's input/MultiTouch
makes of them (the same cases as agent-android/test/.../input/MultiTouchTest.java), and its checks."""

from __future__ import annotations

import pytest

from pytest_mobile_agent.virtual.agent.multitouch import motion_events, paths_param
from pytest_mobile_agent.virtual.agent.params import RequestError
from tests.support.input_verifier import verify


def names(paths: list[list[tuple[int, int, int]]]) -> list[str]:
    return [event.describe() for event in motion_events(paths, 0.0)]


def test_two_fingers_go_down_move_and_lift_as_pointer_down_move_and_pointer_up() -> None:
    paths = [[(400, 1000, 0), (350, 950, 16), (300, 900, 32)], [(600, 1200, 0), (650, 1250, 16), (700, 1300, 32)]]
    assert names(paths) == ["DOWN@0[0]", "POINTER_DOWN(1)@0[0,1]", "MOVE@16[0,1]", "MOVE@32[0,1]",
                            "POINTER_UP(0)@32[0,1]", "UP@32[1]"]
    events = motion_events(paths, 1000.0)
    assert events[-1].pointers == ((1, 700, 1300),) and all(e.down_ms == 1000.0 for e in events)
    assert verify(events) == []


def test_a_finger_going_down_after_another_lifted_takes_the_lowest_free_id_at_its_index() -> None:
    paths = [[(100, 100, 0), (100, 100, 50)], [(500, 500, 10), (500, 500, 200)], [(200, 200, 100), (200, 200, 150)]]
    assert names(paths) == ["DOWN@0[0]", "POINTER_DOWN(1)@10[0,1]", "POINTER_UP(0)@50[0,1]",
                            "POINTER_DOWN(0)@100[0,1]", "POINTER_UP(0)@150[0,1]", "UP@200[1]"]
    assert verify(motion_events(paths, 0.0)) == []


def test_a_double_tap_is_two_gestures_each_with_its_own_down_time() -> None:
    events = motion_events([[(540, 900, 0), (540, 900, 50)], [(540, 900, 150), (540, 900, 200)]], 0.0)
    assert [e.describe() for e in events] == ["DOWN@0[0]", "UP@50[0]", "DOWN@150[0]", "UP@200[0]"]
    assert events[3].down_ms == 150 and verify(events) == []


@pytest.mark.parametrize("params", [
    {}, {"paths": []}, {"paths": [[[1, 1, 0]]]}, {"paths": [[[1, 1, 5], [1, 1, 5]]]},
    {"paths": [[[1, 1, 10], [1, 1, 5], [1, 1, 20]]]}, {"paths": [[[-1, 1, 0], [1, 1, 5]]]},
    {"paths": [[[1, 1, 0], [1, 1, 60_001]]]}, {"paths": [[[1, 1, 0], [1, "a", 5]]]},
    {"paths": [[[1, 1, 0], [1, True, 5]]]}, {"paths": [[[10 * i, 1, 0], [1, 1, 5]] for i in range(11)]},
])
def test_bad_paths_are_invalid_params(params: dict[str, object]) -> None:
    with pytest.raises(RequestError) as raised:
        paths_param(params)
    assert raised.value.code == "invalid_params"
