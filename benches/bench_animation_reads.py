"""Reads per second while the screen animates, and how soon a screen that went still is read.

    python3 benches/bench_animation_reads.py                        # the virtual device, its controller double
    python3 benches/bench_animation_reads.py --serial emulator-5554  # an emulator with -grpc -grpc-use-token

On the fixture app's Loading screen (a spinner that never stops: frames keep changing, the tree does
not), a mirror on the controller path waits `--seconds` for an element that never comes; the line
gives the snapshot reads per second it made, by reason, and the frames it received. The same wait on
the still Login screen is the baseline (the one-second poll). Then the Loading screen is opened with
its spinner stopping after 1.5 s (`--es spin_ms 1500`, the screen shows `Loaded`): the line gives the
time from the arrival of the last frame that changed to the end of the read that shows `Loaded`.

Targets (issue 19): at most 4 reads per second during continuous animation; a settled screen read
within 150 ms of going still.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import sys
import time

from measure_session import Bench, target

from pytest_mobile_agent.errors import WaitTimeout
from pytest_mobile_agent.session import ControllerChoice


def reads_while_waiting(bench: Bench, tab: str, seconds: float) -> tuple[float, dict[str, int], int]:
    """Reads per second of a mirror waiting `seconds` for an element that never comes on `tab`."""
    bench.open(tab)
    with bench.session(ControllerChoice.Auto()) as (session, screen):
        screen.snapshot()
        before, by_reason_before, frames_before = (
            session.reads,
            dict(session.tree.reads_by_reason),
            session.frames_received,
        )
        started = time.monotonic()
        with contextlib.suppress(WaitTimeout):
            screen.wait_for(text="never on this screen", timeout=seconds)
        took = time.monotonic() - started
        by_reason = {reason.value: count - by_reason_before.get(reason, 0)
                     for reason, count in session.tree.reads_by_reason.items()
                     if count - by_reason_before.get(reason, 0)}
        return (session.reads - before) / took, by_reason, session.frames_received - frames_before


def settled_read_latency(bench: Bench) -> float:
    """Milliseconds from the arrival of the last frame that changed to the end of the read that
    showed the still screen."""
    bench.open("Loading --es spin_ms 1500")
    with bench.session(ControllerChoice.Auto()) as (session, screen):
        screen.wait_for(text="Loaded", timeout=10.0)
        record = session.last_read
        assert record is not None
        read_end = record.started_at + record.duration
        frames = session.frames.frames()
        last_change = frames[-1]
        for earlier in reversed(frames[:-1]):
            if earlier.hash != last_change.hash:
                break
            last_change = earlier
        return (read_end - last_change.received_at) * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--serial", default="virtual", help="a serial on the local adb server, or `virtual`")
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with target(args.serial) as (device, jar, serial, controller), controller() as choice:
        print(f"reads under animation on {serial} ({jar.describe()}), load average {os.getloadavg()[0]:.2f}")
        if choice is None:
            print("  no controller: this bench needs the controller's frames")
            return 1
        bench = Bench(device, jar, serial, emulator=True)
        for tab in ("Login", "Loading"):
            runs = [reads_while_waiting(bench, tab, args.seconds) for _ in range(args.runs)]
            rates = [rate for rate, _, _ in runs]
            print(f"  {tab:8} {args.seconds:g} s wait: reads/s mean {statistics.mean(rates):6.2f} "
                  f"max {max(rates):6.2f} (runs {', '.join(f'{r:.2f}' for r in rates)}); "
                  f"last run by reason {runs[-1][1]}, frames {runs[-1][2]}")
        latencies = [settled_read_latency(bench) for _ in range(args.runs)]
        print(f"  Loading, spinner stops: last changed frame to the read showing it: "
              f"{', '.join(f'{v:.0f}' for v in latencies)} ms (max {max(latencies):.0f} ms)")
        with contextlib.suppress(Exception):
            device.shell("am force-stop dev.mobileagent.fixture")
    return 0


if __name__ == "__main__":
    sys.exit(main())
