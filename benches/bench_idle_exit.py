"""What the agent's idle exit costs a run, and what it frees: issue 28 item 9.

    python3 benches/bench_idle_exit.py [--runs 10] [--idle 1.0] [--serial SERIAL]

An agent lingers after a run for its idle exit (`--agent-idle-exit`), holding UI automation, so that
the next run reuses it; once it has exited, the next run launches one. This measures both attaches
on one target, as the first test of a run meets them:

* launched attach: the previous agent has exited on its idle bound (`--idle` seconds here), so the
  attach pushes the jar and starts a new one;
* reused attach: the previous run's agent still lingers (its host just left), so the attach finds
  its record and reuses it (no process started);
* UI automation free after the last host left: from the connection's close to the agent gone from
  the process list, which is when uiautomator2, Appium or `uiautomator dump` can take UI automation.

With `--serial virtual` (the default) it runs on the virtual device (a VirtualLab, the stand-in jar), whose launched
attach takes no real UI automation; with `--serial` on that target of the local adb server, with the
jar the plugin would deploy (MOBILE_AGENT_JAR, the bundled jar, else the per-user cached build).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

from agent_target import agent_target
from timing import summary, timed_once

from pytest_mobile_agent.adb import Device
from pytest_mobile_agent.agent import (
    AgentJar,
    Attached,
    Deployer,
    DeployOptions,
    Launched,
    Records,
    Reused,
)
from pytest_mobile_agent.agent.launch import parse_ps

PS_COMMAND = "ps -A -o PID,ARGS"


def running(device: Device, pid: int) -> bool:
    return any(entry.pid == pid for entry in parse_ps(device.shell(PS_COMMAND).text()))


def wait_gone(device: Device, pid: int, timeout: float) -> float:
    """Milliseconds from now until the agent's pid has left the process list."""
    started = time.perf_counter()
    deadline = time.monotonic() + timeout
    while running(device, pid):
        if time.monotonic() > deadline:
            raise SystemExit(f"the agent (pid {pid}) still runs {timeout:.0f} s after its host left")
        time.sleep(0.01)
    return (time.perf_counter() - started) * 1000


def attach(device: Device, jar: AgentJar, records: Records, idle: float) -> tuple[float, Attached]:
    options = DeployOptions(idle_exit_ms=int(idle * 1000))
    took, attached = timed_once(Deployer(device, jar, records, options).attach)
    return took, attached


def measure(device: Device, jar: AgentJar, runs: int, idle: float) -> list[str]:
    with tempfile.TemporaryDirectory(prefix="bench-idle-records-") as directory:
        records = Records.in_dir(Path(directory))
        launched: list[float] = []
        reused: list[float] = []
        freed: list[float] = []
        for _ in range(runs):
            took, first = attach(device, jar, records, idle)
            assert isinstance(first.outcome, Launched), first.outcome
            launched.append(took)
            first.connection.close()  # a run ends; the next one comes while the agent lingers
            took, again = attach(device, jar, records, idle)
            assert isinstance(again.outcome, Reused), again.outcome
            reused.append(took)
            again.connection.close()  # the last run ends; nobody comes back
            freed.append(wait_gone(device, again.record.pid, idle + 10))
    return [
        f"launched attach (the last agent exited)      {summary(launched)}",
        f"reused attach (the last run's agent lingers) {summary(reused)}",
        f"UI automation free after the last host left  {summary(freed, 0)}  (idle exit {idle * 1000:.0f} ms)",
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--idle", type=float, default=1.0, help="the agents' idle exit in seconds (default 1)")
    parser.add_argument("--serial", default="virtual", help="a serial on the local adb server, or `virtual` (default)")
    args = parser.parse_args()
    with agent_target(args.serial) as target:
        print(f"{target.describe()}, load average {os.getloadavg()[0]:.2f}")
        for line in measure(target.device, target.jar, args.runs, args.idle):
            print(f"  {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
