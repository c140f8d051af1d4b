"""A swipe and its settle, as `scroll_until` does them, through the agent and through the controller.

    python3 benches/bench_scroll_settle.py [--rounds 5] [--swipes 6]

On the virtual device's List tab (a LazyColumn of 100 items), each step is what `Mirror.scroll_until`
does per swipe: `swipe_within(list, "up", distance=0.7, duration=0.3, resting=True)`, then
`settle(timeout=2.0, quiet=SCROLL_QUIET)`, timed from the swipe to the settle's return (the replica
read afresh and still). The two paths take turns, `--swipes` steps each per round, each round on a
fresh List tab, so a change in the host's load falls on both alike; the line per path gives p50,
p95 and the maximum, and the reads per step by reason.

`--cold-read-ms N` charges every cold read of an event-less (Compose) window N ms in the agent
double, the UI model held meanwhile, as on an emulator, where such a read takes 0.5 to 1.5 s
(session/tree.py): the virtual device's own cold read costs about a millisecond, so without it the
figures show the host's waits, and with it what each extra evicting read costs on an emulator.

Target (issue 16, item 7): the controller's step no slower than the agent's (ratio of the p50s <= 1).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from timing import summary, timed_once

from pytest_mobile_agent.adb import AdbServer
from pytest_mobile_agent.agent import AgentJar, Deployer, DeployOptions, Records
from pytest_mobile_agent.emulator.discovery import DISCOVERY_DIR_ENV
from pytest_mobile_agent.mirror import Mirror
from pytest_mobile_agent.mirror.mirror import SCROLL_QUIET
from pytest_mobile_agent.session import ControllerChoice, Session, select_paths
from pytest_mobile_agent.virtual import VirtualLab
from pytest_mobile_agent.virtual.fronts.controller import AvdConfig, ControllerDouble

COMPONENT = "dev.mobileagent.fixture/.MainActivity"


@contextlib.contextmanager
def mirror_on(device: Any, serial: str, choice: ControllerChoice) -> Iterator[tuple[Session, Mirror]]:
    attached = Deployer(device, AgentJar.stand_in(), Records(), DeployOptions(idle_exit_ms=60_000)).attach()
    session = Session.start_selected(attached, select_paths(serial, True, choice), device=device)
    try:
        yield session, Mirror(session.backend(), timeout=10.0)
    finally:
        session.stop()


def steps(device: Any, serial: str, choice: ControllerChoice, swipes: int) -> tuple[list[float], Counter[str]]:
    out = device.shell_until(f"am start -W -S -n {COMPONENT} --es tab List", time.monotonic() + 30)
    if out.exit_code != 0:
        raise SystemExit(f"am start failed: {out.text()}")
    with mirror_on(device, serial, choice) as (session, screen):
        if choice.kind != "off" and session.controller is None:
            raise SystemExit(f"no controller: {session.warning}")
        container = screen.wait_for(id="list")
        screen.settle(timeout=2.0)
        before = Counter(session.tree.reads_by_reason)
        times = []
        for _ in range(swipes):
            took, settled = timed_once(lambda: (screen.swipe_within(container, "up", distance=0.7, duration=0.3,
                                                                    resting=True),
                                                screen.settle(timeout=2.0, quiet=SCROLL_QUIET))[1])
            if not settled:
                raise SystemExit("the screen did not settle within 2 s")
            times.append(took)
        reads = Counter({reason.name.lower(): n - before[reason] for reason, n in session.tree.reads_by_reason.items()})
        if choice.kind != "off" and session.inputs.controller < swipes:
            raise SystemExit(f"the swipes did not go through the controller: {session.inputs}")
        return times, reads


def charge_cold_reads(ms: float) -> None:
    """Every read of an event-less window that misses the agent double's cache takes `ms` longer."""
    from pytest_mobile_agent.virtual.agent.tree import Tree

    read_window = Tree._read_window

    def cold(self: Tree, window: Any) -> Any:
        if not window.sends_change_events:
            time.sleep(ms / 1000)
        return read_window(self, window)

    Tree._read_window = cold  # type: ignore[method-assign]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--swipes", type=int, default=6)
    parser.add_argument("--cold-read-ms", type=float, default=0.0,
                        help="charge each cold read of a Compose window this long (an emulator's: 500 to 1,500)")
    args = parser.parse_args()
    if args.cold_read_ms > 0:
        charge_cold_reads(args.cold_read_ms)
    lab = VirtualLab.start(1)
    try:
        serial = lab.serials[0]
        device = AdbServer(host="127.0.0.1", port=lab.adb_port).device(serial)
        virtual = lab.device(serial)
        with tempfile.TemporaryDirectory() as directory:
            os.environ[DISCOVERY_DIR_ENV] = directory
            double = ControllerDouble(virtual.display, serial=serial, avd=AvdConfig.of_device(virtual),
                                      discovery_dir=Path(directory)).start()
            try:
                paths = {"agent": ControllerChoice.Off(), "controller": ControllerChoice.Auto()}
                times: dict[str, list[float]] = {name: [] for name in paths}
                reads: dict[str, Counter[str]] = {name: Counter() for name in paths}
                steps(device, serial, paths["agent"], 1)  # warm: the app, the agent, the code paths
                for _ in range(args.rounds):
                    for name, choice in paths.items():
                        took, counted = steps(device, serial, choice, args.swipes)
                        times[name] += took
                        reads[name] += counted
            finally:
                double.stop()
        n = args.rounds * args.swipes
        charged = f", cold Compose reads charged {args.cold_read_ms:g} ms" if args.cold_read_ms > 0 else ""
        print(f"swipe + settle on the List tab, {args.rounds} rounds of {args.swipes} swipes a path{charged}, "
              f"load average {os.getloadavg()[0]:.2f}:")
        for name in paths:
            per_step = ", ".join(f"{reason} {count / n:.2f}" for reason, count in sorted(reads[name].items()))
            print(f"  {name:<10} {summary(times[name], digits=0)}  reads a step: {per_step}")
        ratio = (
            sorted(times["controller"])[len(times["controller"]) // 2]
            / sorted(times["agent"])[len(times["agent"]) // 2]
        )
        print(f"  controller / agent, p50: {ratio:.2f}")
    finally:
        lab.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
