"""The host side going away or being displaced, on the virtual device.

* Another host takes the agent over (a second attach from the same records): the first host's
  pending calls fail with Disconnected at once, with the "another host took the agent over" hint,
  and its mirror reports it; the agent itself is reused, not restarted.
* The host vanishes without a shutdown: the agent exits on its idle bound and releases UI
  automation, so nothing is left running; the next attach finds the record stale and launches.
"""

from __future__ import annotations

import threading
import time

from pytest_mobile_agent import errors
from pytest_mobile_agent.agent import Launched, Records, Reused
from pytest_mobile_agent.agent.protocol import Hint
from pytest_mobile_agent.mirror import Mirror
from pytest_mobile_agent.session import ControllerChoice, Session, select_paths
from tests.support.lab import Bench

SLOW_SWIPE = {"x1": 540, "y1": 1800, "x2": 540, "y2": 600, "duration_ms": 3000}


def test_another_host_taking_the_agent_over_fails_the_first_hosts_calls_with_the_replaced_hint(vd: Bench) -> None:
    records = Records()
    first = vd.attach(records)
    session = Session.start_selected(first, select_paths(vd.serial, True, ControllerChoice.Off(), None),
                                     device=vd.device)
    screen = Mirror(session.backend(), timeout=5.0)
    screen.wait_for(id="login_button")
    outcome: list[BaseException | dict] = []

    def pending() -> None:
        try:
            outcome.append(first.connection.request("swipe", SLOW_SWIPE, timeout=8.0))
        except BaseException as exc:  # noqa: BLE001 - asserted on below
            outcome.append(exc)

    thread = threading.Thread(target=pending, daemon=True)
    thread.start()
    time.sleep(0.1)
    second = vd.deployer(records).attach()  # the same build and record: reused, our connection replaced
    vd.attached.append(second)
    thread.join(2.0)
    assert isinstance(second.outcome, Reused) and second.record.pid == first.record.pid
    assert outcome and isinstance(outcome[0], errors.Disconnected), outcome
    assert outcome[0].reconnect_hint == Hint.REPLACED.value and "replaced" in str(outcome[0])
    gone = screen.wait_disconnected(timeout=1.0)
    assert gone.reconnect_hint == Hint.REPLACED.value
    # the new host is served at once (the abandoned swipe still holds the input until it ends)
    assert second.connection.request("bounds", {"ids": []}, timeout=2.0) == {"nodes": []}
    assert vd.agent_pids() == [first.record.pid]


def test_a_host_that_vanishes_leaves_nothing_running_once_the_idle_bound_passes(vd: Bench) -> None:
    records = Records()
    attached = vd.attach(records, idle_exit_ms=1000)  # the bound also runs from the ready line to the host's connection
    assert vd.model.automation.holder() is not None
    attached.connection.close()  # the host process dies: no shutdown request
    deadline = time.monotonic() + 5.0
    while vd.agent_pids():
        assert time.monotonic() < deadline, "the agent outlived its idle bound"
        time.sleep(0.02)
    assert vd.model.automation.holder() is None, "UI automation released on the idle exit"
    assert records.get(vd.serial) is not None  # the host did not get to forget it
    again = vd.attach(records)
    assert isinstance(again.outcome, Launched) and again.record.pid != attached.record.pid
    again.stop()
    assert vd.agent_pids() == [] and vd.model.automation.holder() is None
