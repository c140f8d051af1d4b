"""Both agents answer the `gesture` method the same (docs/protocol.md, "gesture"): one script of
gestures of several fingers, good and bad, sent in the same order to the Java agent on the host JVM
(`HostMain`, its fake platform) and to the agent double (its UI model on the fixture's Login tab),
every response compared whole: a result's `accepted` and `events`, an error's code, retryable and
message. The MotionEvents each makes of the paths are pinned by the same cases on both sides
(agent-android/test/.../input/MultiTouchTest.java, tests/unit/virtual/agent/test_multitouch.py)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.conformance.test_agents_answer_the_same import JavaWire
from tests.support.agent_host import Host, double_on_login
from tests.support.java_agent import needs_java, start_java_agent

#: an empty stretch of the Login tab, below its buttons, on both fixtures
X, Y = 200, 2050

SCRIPT: list[dict[str, Any]] = [
    {"paths": [[[X, Y, 0], [X - 40, Y - 40, 16], [X - 80, Y - 80, 100]],
               [[X + 100, Y + 100, 0], [X + 140, Y + 140, 16], [X + 180, Y + 180, 100]]]},  # a pinch out
    {"paths": [[[X, Y, 0], [X, Y, 40]], [[X, Y, 120], [X, Y, 160]]]},  # a double tap
    {"paths": [[[X, Y, 0], [X, Y, 50]], [[X + 300, Y, 10], [X + 300, Y, 150]], [[X + 100, Y, 100], [X + 100, Y, 120]]]},
    {"paths": [[[X, Y, 30], [X + 5, Y, 60]]]},  # a finger that starts late
    {},
    {"paths": []},
    {"paths": "x"},
    {"paths": [[[X, Y, 0]]]},
    {"paths": [[[X, Y, 5], [X, Y, 5]]]},
    {"paths": [[[X, Y, 10], [X, Y, 5], [X, Y, 20]]]},
    {"paths": [[[-1, Y, 0], [X, Y, 5]]]},
    {"paths": [[[X, Y, 0], [X, Y, 60_001]]]},
    {"paths": [[[X, Y, 0], [X, "a", 5]]]},
    {"paths": [[[X, Y, 0], [X, Y, 5.5]]]},
    {"paths": [[[X, Y, 0], [X, Y]]]},
    {"paths": [[[X + i, Y, 0], [X + i, Y, 5]] for i in range(11)]},
]


@pytest.fixture
def java_wire(classpath: str) -> Iterator[JavaWire]:
    agent = start_java_agent(classpath)
    wire: JavaWire | None = None
    try:
        wire = JavaWire(agent)
        yield wire
    finally:
        if wire is not None:
            wire.close()
        agent.stop()


@pytest.fixture
def double_host() -> Iterator[Host]:
    with double_on_login() as (_, _, host):
        yield host


def answers(call: Any) -> list[dict[str, Any]]:
    return [{k: v for k, v in call("gesture", params).items() if k not in ("id", "type")} for params in SCRIPT]


@needs_java
def test_the_java_agent_and_the_double_answer_every_gesture_the_same(java_wire: JavaWire, double_host: Host) -> None:
    from_java, from_double = answers(java_wire.call), answers(double_host.call)
    for params, java, double in zip(SCRIPT, from_java, from_double, strict=True):
        assert double == java, params
    assert [a.get("result") for a in from_java[:4]] == [
        {"accepted": True, "events": 6}, {"accepted": True, "events": 4}, {"accepted": True, "events": 6},
        {"accepted": True, "events": 3}]
    assert all(a["error"]["code"] == "invalid_params" for a in from_java[4:])
