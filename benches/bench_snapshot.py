"""`assert_snapshot` on a still screen, through the agent alone and with the emulator's frames.

    python3 benches/bench_snapshot.py [--rounds 3] [--calls 5]

On the virtual device's Login tab with "ada" typed into the focused user name field (the field is
compared, its caret let off), each call is `screen.assert_snapshot("login")` against a baseline
written once at the start, timed from the call to its return: the screen still, screenshots taken
and decoded, masks applied, compared with the baseline. The two paths take turns, `--calls` calls
each per round, each round on a fresh start of the app; the line per path gives p50, p95 and the
maximum, and the screenshots a call took.

Target (issue 41, item 16): a still screen compares in well under a second (it took 2.4 to 3.6 s).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench_scroll_settle import mirror_on
from timing import summary, timed_once

from pytest_mobile_agent.adb import AdbServer
from pytest_mobile_agent.emulator.discovery import DISCOVERY_DIR_ENV
from pytest_mobile_agent.mirror.snapshots import SnapshotSettings
from pytest_mobile_agent.session import ControllerChoice
from pytest_mobile_agent.virtual import VirtualLab
from pytest_mobile_agent.virtual.fronts.controller import AvdConfig, ControllerDouble

COMPONENT = "dev.mobileagent.fixture/.MainActivity"


def calls(device: Any, serial: str, choice: ControllerChoice, count: int, baselines: Path) -> tuple[list[float], int]:
    out = device.shell_until(f"am start -W -S -n {COMPONENT} --es tab Login", time.monotonic() + 30)
    if out.exit_code != 0:
        raise SystemExit(f"am start failed: {out.text()}")
    with mirror_on(device, serial, choice) as (session, screen):
        if choice.kind != "off" and session.controller is None:
            raise SystemExit(f"no controller: {session.warning}")
        screen.wait_for(id="username").type_text("ada")
        screen.wait_for(id="username", text="ada", focused=True)
        screen.settle(timeout=2.0)
        screen.snapshot_settings = SnapshotSettings(directory=baselines, output=lambda: baselines,
                                                    update=not any(baselines.rglob("login.png")))
        screen.assert_snapshot("login")
        screen.snapshot_settings = SnapshotSettings(directory=baselines, output=lambda: baselines)
        taken = [0]
        take = screen.screenshot_png

        def counted() -> bytes:
            taken[0] += 1
            return take()

        screen.screenshot_png = counted  # type: ignore[method-assign]
        times = [timed_once(lambda: screen.assert_snapshot("login"))[0] for _ in range(count)]
        return times, taken[0]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--calls", type=int, default=5)
    args = parser.parse_args()
    lab = VirtualLab.start(1)
    try:
        serial = lab.serials[0]
        device = AdbServer(host="127.0.0.1", port=lab.adb_port).device(serial)
        virtual = lab.device(serial)
        with tempfile.TemporaryDirectory() as directory:
            os.environ[DISCOVERY_DIR_ENV] = directory
            baselines = Path(directory) / "snapshots"
            double = ControllerDouble(virtual.display, serial=serial, avd=AvdConfig.of_device(virtual),
                                      discovery_dir=Path(directory)).start()
            try:
                paths = {"agent": ControllerChoice.Off(), "frames": ControllerChoice.Auto()}
                times: dict[str, list[float]] = {name: [] for name in paths}
                shots: dict[str, int] = dict.fromkeys(paths, 0)
                for _ in range(args.rounds):
                    for name, choice in paths.items():
                        took, taken = calls(device, serial, choice, args.calls, baselines)
                        times[name] += took
                        shots[name] += taken
            finally:
                double.stop()
        n = args.rounds * args.calls
        print(f"assert_snapshot on a still Login tab, {args.rounds} rounds of {args.calls} calls a path, "
              f"load average {os.getloadavg()[0]:.2f}:")
        for name in paths:
            print(f"  {name:<7} {summary(times[name], digits=0)}  screenshots a call: {shots[name] / n:.2f}")
    finally:
        lab.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
