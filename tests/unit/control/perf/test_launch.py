"""app.start's launch metrics: what `am start -W` printed, and a start it did not time said so."""

from __future__ import annotations

from pytest_mobile_agent.control.perf.launch import parse_am_start


def test_a_warm_start_on_the_virtual_device_layout() -> None:
    launch = parse_am_start("Stopping: a.b\nStarting: Intent { cmp=a.b/.Main }\nStatus: ok\nLaunchState: WARM\n"
                            "Activity: a.b/.Main\nTotalTime: 95\nWaitTime: 101\nComplete\n")
    assert (launch.state, launch.total_ms, launch.wait_ms, launch.timed) == ("WARM", 95, 101, True)
    assert launch.figures() == {"startup_ms": 95.0, "wait_ms": 101.0}


def test_a_start_with_only_a_warning_is_untimed_and_says_why() -> None:
    launch = parse_am_start("Starting: Intent { cmp=a.b/.Main }\n"
                            "Warning: Activity not started, its current task has been brought to the front\n")
    assert not launch.timed and launch.status == "none" and launch.figures() == {}
    assert launch.why_untimed == ("am start printed no timing block (no Status line: started without -W, "
                                  "or only a warning)")


def test_an_unknown_launch_state_is_unknown() -> None:
    launch = parse_am_start("Status: ok\nLaunchState: UNKNOWN (0)\nWaitTime: 3\nComplete\n")
    assert launch.state == "UNKNOWN" and not launch.timed
    assert launch.why_untimed == ("the activity manager did not time this start "
                                  "(LaunchState: UNKNOWN, no TotalTime line)")
