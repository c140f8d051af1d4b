"""How soon frames come back after the emulator's gRPC endpoint was away, on the virtual device.

    python3 benches/bench_controller_recovery.py [--outage 5] [--runs 3]

A session on the virtual device's controller double (the fixture app's Loading screen, so frames keep
coming) loses the endpoint for `--outage` seconds (the double stopped, its port closed), then gets it
back on the same port (as the emulator console's `grpc <port>` brings it back). The line gives, per
run, the time from the endpoint's return to the next frame on the event stream, the failed
subscriptions meanwhile and whether the frame source said it was not live during the outage.

Target (issue 19): frames back within 1 s of the endpoint returning.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from controller_rig import controller_rig

from pytest_mobile_agent.session import Session
from pytest_mobile_agent.virtual.fronts.controller import ControllerDouble


def wait(condition: object, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while not condition():  # type: ignore[operator]
        if time.monotonic() > deadline:
            return False
        time.sleep(0.005)
    return True


def recovery(session: Session, double: ControllerDouble, display: object, serial: str, directory: Path,
             outage: float) -> tuple[ControllerDouble, float, int, bool]:
    port, token = double.port, double.token
    failures = session.frames.failures
    double.stop()
    time.sleep(outage)
    not_live = not session.frames.live
    received = session.frames_received
    back = ControllerDouble(display, serial=serial, discovery_dir=directory, port=port)
    back.token = token
    back.start()
    returned = time.monotonic()
    if not wait(lambda: session.frames_received > received, 60.0):
        raise SystemExit("no frame within 60 s of the endpoint's return")
    return back, time.monotonic() - returned, session.frames.failures - failures, not_live


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--outage", type=float, default=5.0, help="seconds the endpoint is away")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with controller_rig("Loading") as rig:
        session = rig.session
        if not wait(lambda: session.frames_received > 0, 10.0):
            raise SystemExit(f"no frames: {session.warning}")
        print(f"frames back after a {args.outage:g} s outage, load average {os.getloadavg()[0]:.2f}:")
        for _ in range(args.runs):
            rig.double, took, failed, not_live = recovery(session, rig.double, rig.display, rig.serial,
                                                          rig.discovery_dir, args.outage)
            print(f"  {took * 1000:7.0f} ms after the endpoint's return; {failed} failed subscriptions; "
                  f"live during the outage: {not not_live}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
