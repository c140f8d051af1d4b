"""The agent part of the seed's tests/measure.rs: attaches, the replacement of an older build, and the
request round trip through the connection, on whatever target is named.

    python3 benches/measure.py                       # the virtual device (a VirtualLab), stand-in jar
    python3 benches/measure.py --serial emulator-5554 # a real target on the local adb server, built jar

Each line prints p50, p95 and the maximum (ms):

* launched attach: a first attach that pushes and starts the agent (the agent stopped after each);
* stop: `Attached.stop`, from the shutdown request to the process gone from /proc;
* reused attach: an attach that finds the recorded agent and reuses it (most of it the process list);
* replacement of an older build: an attach that stops an agent started from a 0.0.9 dex, then launches;
* request round trip: one `bounds` request with no ids through the connection (the agent's cheapest).

Targets on the virtual device: reused attach p50 <= 15 ms, request round trip p50 <= 1 ms.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from agent_target import agent_target
from timing import summary, timed_once

from pytest_mobile_agent.agent import AgentJar, Deployer, DeployOptions, Launched, Records, Reused

IDLE_EXIT_MS = 10_000






def measure(device: Any, jar: AgentJar, runs: int, requests: int) -> list[str]:
    options = DeployOptions(idle_exit_ms=IDLE_EXIT_MS)
    lines = []

    launched, stops = [], []
    for _ in range(runs):
        records = Records()
        took, attached = timed_once(Deployer(device, jar, records, options).attach)
        assert isinstance(attached.outcome, Launched), attached.outcome
        launched.append(took)
        stops.append(timed_once(attached.stop)[0])
    lines.append(f"launched attach              {summary(launched)}")
    lines.append(f"stop (shutdown to exit)      {summary(stops)}")

    records = Records()
    first = Deployer(device, jar, records, options).attach()
    reused, last = [], first
    for _ in range(runs):
        took, attached = timed_once(Deployer(device, jar, records, options).attach)
        assert attached.outcome == Reused(), attached.outcome
        reused.append(took)
        last = attached
    lines.append(f"reused attach                {summary(reused)}")

    conn = last.connection
    for _ in range(20):
        conn.request("bounds", {"ids": []}, timeout=2.0)  # warm up
    round_trips = [timed_once(lambda: conn.request("bounds", {"ids": []}, timeout=2.0))[0] for _ in range(requests)]
    lines.append(f"request round trip (bounds)  {summary(round_trips)}")
    last.stop()

    older = jar.as_version("0.0.9")
    replaced = []
    for _ in range(max(3, runs // 2)):
        records = Records()
        old = Deployer(device, older, records, options).attach()
        old.connection.close()
        took, attached = timed_once(Deployer(device, jar, records, options).attach)
        assert isinstance(attached.outcome, Launched) and attached.outcome.replaced, attached.outcome
        replaced.append(took)
        attached.stop()
    lines.append(f"replacement of an older build {summary(replaced)}")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--serial", default="virtual", help="a serial on the local adb server, or `virtual`")
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--requests", type=int, default=500)
    args = parser.parse_args()
    with agent_target(args.serial) as target:
        print(f"agent on {target.describe()}, load average {os.getloadavg()[0]:.2f}")
        for line in measure(target.device, target.jar, args.runs, args.requests):
            print("  " + line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
