"""The quiet-device wait and disturbance detection decide from the process list alone."""

from __future__ import annotations

import pytest

from pytest_mobile_agent.policy import (
    DeviceBusy,
    DeviceProcess,
    DisturbanceWatch,
    QuietWait,
    parse_ps,
    read_activity,
)

PS = """PID ARGS
    1 /system/bin/init second_stage
  812 /system/bin/adbd --root_seclabel=u:r:su:s0
 2973 mobile-agent mobile-agent-0.1.0-p1-7fec0cb05341-9f3cf6e22dae
 3001 uiautomator events
 3100 app_process / dev.mobileagent.agent.Main serve --socket other
garbage line
"""


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


def test_ps_lines_become_processes_and_junk_is_skipped() -> None:
    processes = parse_ps(PS)
    assert [p.pid for p in processes] == [1, 812, 2973, 3001, 3100]
    assert processes[2].args == "mobile-agent mobile-agent-0.1.0-p1-7fec0cb05341-9f3cf6e22dae"


def test_our_agent_is_not_activity_but_foreign_agents_and_automation_clients_are() -> None:
    activity = read_activity(parse_ps(PS), {"mobile-agent-0.1.0-p1-7fec0cb05341-9f3cf6e22dae"})
    assert [p.pid for p in activity.foreign_agents] == [3100]
    assert [p.pid for p in activity.automation_clients] == [3001]
    assert not activity.quiet
    assert "uiautomator events (pid 3001)" in activity.describe()


def test_the_wait_returns_once_the_holder_is_gone() -> None:
    clock = FakeClock()
    listings = [parse_ps(PS)] * 3 + [parse_ps("PID ARGS\n 1 init\n")]
    messages: list[str] = []
    wait = QuietWait(lambda: listings.pop(0), lambda: set(), timeout=60, poll=0.5, clock=clock, sleep=clock.sleep, on_wait=messages.append)
    assert wait.wait() == pytest.approx(1.5)
    assert len(messages) == 2 and "uiautomator events (pid 3001)" in messages[0]
    assert messages[1] == "the device is quiet after 1.5 s"


def test_a_long_wait_reports_its_progress_every_ten_seconds_naming_the_holder() -> None:
    """Issue 16 item 5: the wait said one line to the log and nothing on the terminal after."""
    clock = FakeClock()
    listings = [parse_ps(PS)] * 50 + [parse_ps("PID ARGS\n 1 init\n")]
    messages: list[str] = []
    wait = QuietWait(lambda: listings.pop(0), lambda: set(), timeout=60, poll=0.5, clock=clock, sleep=clock.sleep,
                     on_wait=messages.append)
    assert wait.wait() == pytest.approx(25)
    holds = f"waiting for the device to be quiet: {read_activity(parse_ps(PS), set()).describe()} holds it"
    assert "automation client uiautomator events (pid 3001)" in holds
    assert messages == [f"{holds}; waited 0 s of 60 s", f"{holds}; waited 10 s of 60 s", f"{holds}; waited 20 s of 60 s",
                        "the device is quiet after 25.0 s"]


def test_a_device_quiet_at_once_says_nothing() -> None:
    messages: list[str] = []
    QuietWait(lambda: parse_ps("PID ARGS\n 1 init\n"), lambda: set(), on_wait=messages.append).wait()
    assert messages == []


def test_past_the_timeout_the_wait_fails_naming_what_held_the_device() -> None:
    clock = FakeClock()
    wait = QuietWait(lambda: parse_ps(PS), lambda: set(), timeout=2, poll=0.5, clock=clock, sleep=clock.sleep)
    with pytest.raises(DeviceBusy) as caught:
        wait.wait()
    text = str(caught.value)
    assert "not quiet after 2 s" in text and "uiautomator events (pid 3001)" in text and "--quiet-wait" in text


def test_a_quiet_device_is_no_disturbance_and_an_automation_client_or_a_moved_app_is() -> None:
    quiet = [DeviceProcess(1, "init")]
    watch = DisturbanceWatch(lambda: quiet, lambda: set(), foreground=lambda: "dev.app", expected_foreground="dev.app")
    assert watch.disturbance() is None
    busy = DisturbanceWatch(lambda: parse_ps(PS), lambda: {"mobile-agent-0.1.0-p1-7fec0cb05341-9f3cf6e22dae"})
    assert "uiautomator events" in (busy.disturbance() or "")
    moved = DisturbanceWatch(lambda: quiet, lambda: set(), foreground=lambda: "com.android.launcher", expected_foreground="dev.app")
    assert moved.disturbance() == "dev.app left the front (now com.android.launcher)"
    noted = DisturbanceWatch(lambda: quiet, lambda: set())
    noted.note("our agent was replaced by another connection")
    assert noted.disturbance() == "our agent was replaced by another connection"
