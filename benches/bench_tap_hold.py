"""How long a tap through the emulator's controller holds its press, as the emulator reads it, on the
virtual device.

    python3 benches/bench_tap_hold.py [--taps 300] [--tab Loading]

A session on the virtual device's controller double, on a tab of the fixture app (Loading by default:
its spinner keeps the frames coming, so the double renders and the client hashes beside the taps),
taps the middle of that tab's screen `--taps` times through the controller: a press and its lift in one
streamInputEvent call (session/input.py). The double records when its reader got each message
(`ControllerDouble.still_holds`), which is the hold the guest would see: the client's gap between
its two sends plus the server's between its two reads. The line gives the median, the 99th
percentile and the longest, and how many reached Android's long-press timeout (500 ms), the ones an
app takes for a long press.

Run it under issue 27's quota to see what a starved host makes of a tap (docs/reliability.md):
the busy loop and this process in one cgroup-v1 cpu group of 25,000 us per 100,000 us.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

from controller_rig import controller_rig

from pytest_mobile_agent.mirror import Mirror
from pytest_mobile_agent.session import Session
from pytest_mobile_agent.virtual.fronts.controller import LONG_PRESS_S, ControllerDouble


def holds(session: Session, double: ControllerDouble, tab_name: str, taps: int) -> list[float]:
    screen = Mirror(session.backend())
    x, y = screen.wait_for(id=f"screen_{tab_name.lower()}", timeout=30).center
    before = len(double.still_holds)
    for _ in range(taps):
        ack = session.input.tap(x, y)
        if ack.path != "controller":
            raise SystemExit(f"the tap went through {ack.path}, not the controller: {session.warning}")
    return double.still_holds[before:]


def summary(seconds: list[float]) -> str:
    ms = sorted(s * 1000 for s in seconds)
    p99 = ms[min(len(ms) - 1, round(0.99 * (len(ms) - 1)))]
    long = sum(1 for m in ms if m >= LONG_PRESS_S * 1000)
    return (f"{len(ms)} taps: median {statistics.median(ms):.1f} ms, p99 {p99:.1f} ms, longest {ms[-1]:.1f} ms; "
            f"{long} held {LONG_PRESS_S * 1000:.0f} ms or more")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--taps", type=int, default=300)
    parser.add_argument("--tab", default="Loading", help="the fixture app's tab to stay on")
    args = parser.parse_args()
    if args.taps < 1:
        parser.error("--taps must be at least 1")
    with controller_rig(args.tab) as rig:
        started = time.monotonic()
        measured = holds(rig.session, rig.double, args.tab, args.taps)
        print(f"tap holds through the controller on the {args.tab} tab, {rig.session.frames_received} frames, "
              f"load average {os.getloadavg()[0]:.2f}, {time.monotonic() - started:.0f} s:")
        print(f"  {summary(measured)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
