"""The quiet-device wait and disturbance detection decide from the process list alone."""

from __future__ import annotations

import pytest

from pytest_mobile_agent.plugin.policy import (
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
    wait = QuietWait(
        lambda: listings.pop(0),
        lambda: set(),
        timeout=60,
        poll=0.5,
        clock=clock,
        sleep=clock.sleep,
        on_wait=messages.append,
    )
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
    assert messages == [
        f"{holds}; waited 0 s of 60 s",
        f"{holds}; waited 10 s of 60 s",
        f"{holds}; waited 20 s of 60 s",
        "the device is quiet after 25.0 s",
    ]


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


def test_a_quiet_device_is_no_disturbance_and_an_automation_client_is() -> None:
    quiet = [DeviceProcess(1, "init")]
    watch = DisturbanceWatch(lambda: quiet, lambda: set(), foreground=lambda: "dev.app", expected_foreground="dev.app")
    assert watch.disturbance() is None
    busy = DisturbanceWatch(lambda: parse_ps(PS), lambda: {"mobile-agent-0.1.0-p1-7fec0cb05341-9f3cf6e22dae"})
    assert "uiautomator events" in (busy.disturbance() or "")
    noted = DisturbanceWatch(lambda: quiet, lambda: set())
    noted.note("our agent was replaced by another connection")
    assert noted.disturbance() == "our agent was replaced by another connection"


def test_a_moved_app_is_a_disturbance_only_beside_evidence_of_another_user() -> None:
    """Issue 16, item 1: the app leaving the front after the test's own input is its own failure."""
    quiet = [DeviceProcess(1, "init")]
    moved = DisturbanceWatch(
        lambda: quiet, lambda: set(), foreground=lambda: "com.android.launcher", expected_foreground="dev.app"
    )
    verdict = moved.verdict()
    assert verdict.disturbance is None
    assert verdict.own is not None and verdict.own.startswith(
        "dev.app left the front (now com.android.launcher) with nobody else"
    )
    moved.foreign_input = lambda: "1 touch on /dev/input/event1 that the test did not send"
    assert moved.disturbance() == ("1 touch on /dev/input/event1 that the test did not send; "
                                   "dev.app left the front (now com.android.launcher)")


def test_the_apps_crash_is_its_own_failure_even_beside_another_user() -> None:
    busy = DisturbanceWatch(
        lambda: parse_ps(PS), lambda: set(), crash=lambda: "dev.app crashed (dev.app, PID: 9): boom"
    )
    verdict = busy.verdict()
    assert verdict.disturbance is None and verdict.own is not None and verdict.own.startswith("dev.app crashed")


def test_getevent_lines_count_contacts_and_key_presses_but_not_lifts_or_buttons() -> None:
    from pytest_mobile_agent.plugin.foreign_input import EvdevCounter

    counter = EvdevCounter()
    for line in ["add device 1: /dev/input/event1", '  name:     "virtio_input_multi_touch_1"',
                 "/dev/input/event1: EV_ABS       ABS_MT_TRACKING_ID   00000007",
                 "/dev/input/event1: EV_KEY       BTN_TOUCH            DOWN",
                 "/dev/input/event1: EV_ABS       ABS_MT_TRACKING_ID   ffffffff",
                 "/dev/input/event0: EV_KEY       KEY_HOME             DOWN",
                 "/dev/input/event0: EV_KEY       KEY_HOME             UP"]:
        counter.feed(line)
    mark = counter.mark()
    assert mark.contacts == {"/dev/input/event1": 1} and mark.keys == 1 and counter.devices == ["/dev/input/event1"]


def test_the_apps_java_or_native_crash_is_found_in_the_crash_buffer_and_another_process_is_not() -> None:
    from pytest_mobile_agent.control.app_under_test import crash_of

    java = ("--------- beginning of crash\n"
            "12-03 10:00:00.000  4300  4300 E AndroidRuntime: FATAL EXCEPTION: main\n"
            "12-03 10:00:00.000  4300  4300 E AndroidRuntime: Process: dev.app:sync, PID: 4300\n"
            "12-03 10:00:00.000  4300  4300 E AndroidRuntime: java.lang.IllegalStateException: boom\n")
    assert (
        crash_of("dev.app", java) == "dev.app crashed (dev.app:sync, PID: 4300): java.lang.IllegalStateException: boom"
    )
    assert crash_of("dev.ap", java) is None and crash_of("dev.other", java) is None
    native = ("12-03 10:00:00.000  4300  4321 F libc    : Fatal signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), "
              "fault addr 0x0 in tid 4321 (RenderThread), pid 4300 (dev.app)\n")
    assert crash_of("dev.app", native) == (
        "dev.app crashed: Fatal signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), fault addr "
        "0x0 in tid 4321 (RenderThread), pid 4300 (dev.app)"
    )
    tool = ("12-03 10:00:00.000  3001  3001 E AndroidRuntime: FATAL EXCEPTION: main\n"
            "12-03 10:00:00.000  3001  3001 E AndroidRuntime: PID: 3001\n")
    assert crash_of("dev.app", tool) is None
