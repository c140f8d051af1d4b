"""What telling a disturbance from the test's own failure costs (issue 16, item 1), through the
virtual device's built-in adb endpoint:

* per test, at the agent fixture: the crash buffer's last line (`logcat -b crash -d -t 1`) and the
  input watch's mark;
* once per session and target: starting the input watch (`getevent -l` on a pty, up to its
  `add device` lines);
* per failed test only: the verdict (the process list, the foreground, the crash buffer after the
  mark, the input since the mark, which waits 50 ms for lines still on their way).

    python3 benches/bench_disturbance_watch.py [--runs 50]
"""

from __future__ import annotations

import argparse
import os

from timing import summary, timed, timed_once

from pytest_mobile_agent.adb import AdbServer
from pytest_mobile_agent.agent.launch import parse_ps
from pytest_mobile_agent.control.app_under_test import AppUnderTest, foreground_package, last_crash_line
from pytest_mobile_agent.plugin.foreign_input import InputWatch
from pytest_mobile_agent.plugin.policy import DisturbanceWatch
from pytest_mobile_agent.virtual import VirtualLab


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=50)
    runs = parser.parse_args().runs
    print(f"load average {os.getloadavg()[0]:.2f}")
    lab = VirtualLab.start(1)
    try:
        device = AdbServer(host="127.0.0.1", port=lab.adb_port).device(lab.serials[0])
        started, watch = timed_once(lambda: InputWatch.start(device))
        assert watch is not None
        print(f"input watch start (once per session): {started:.1f} ms")
        print(
            f"crash mark (logcat -b crash -d -t 1), per test: {summary(timed(lambda: last_crash_line(device), runs))}"
        )
        print(f"input mark, per test: {summary(timed(watch.mark, runs), 4)}")
        app = AppUnderTest(device, "dev.mobileagent.fixture", ".MainActivity")
        app.start(extras={"tab": "List"})
        after = last_crash_line(device)
        mark = watch.mark()
        verdict = DisturbanceWatch(lambda: parse_ps(device.shell("ps -A -o PID,ARGS").text()), lambda: set(),
                                   foreground=lambda: foreground_package(device), expected_foreground=app.package,
                                   foreign_input=lambda: watch.foreign_since(mark, 0), crash=lambda: app.crash(after))
        print(f"verdict, per failed test: {summary(timed(verdict.verdict, max(5, runs // 5)))}")
        watch.close()
    finally:
        lab.stop()


if __name__ == "__main__":
    main()
