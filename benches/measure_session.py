"""The session part of the seed's tests/measure.rs, through a mirror on the Compose fixture's Big tab.

    python3 benches/measure_session.py                        # the virtual device (a VirtualLab)
    python3 benches/measure_session.py --serial emulator-5554  # a real target on the local adb server

Each line prints p50, p95 and the maximum (ms):

* first snapshot: a fresh agent's first read of the Big tab (573 nodes), cold, with its idle wait;
* warm snapshot: `Mirror.snapshot()` with nothing new on the event stream (no device read);
* tap acknowledged: `Element.tap()` on a cell, to the agent's verdict (the replica current, no read);
* tap on Login / Big to the tree showing it, on the agent path and the controller path: from the
  tap to `wait_for` finding the Login button / all 500 cells;
* killed agent to disconnected: from `kill -9` to the mirror reporting the disconnection;
* selector query: `find(text="Cell 500")` and a three-criteria `find_all` over the 573-node replica;
* applying a snapshot: `Replica.apply` of the 573-node snapshot (and parsing the agent's JSON).

Targets on the virtual device: warm snapshot p50 <= 0.4 ms, selector query p50 <= 0.5 ms, applying
a 573-node snapshot p50 <= 10 ms, killed agent to disconnected p50 <= 20 ms.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from agent_target import agent_target
from timing import summary, timed_once

from pytest_mobile_agent.agent import AgentJar, Deployer, DeployOptions, Records
from pytest_mobile_agent.mirror import Mirror, Replica
from pytest_mobile_agent.session import ControllerChoice, ReadReason, Session, select_paths
from pytest_mobile_agent.session.tree import parse_snapshot

COMPONENT = "dev.mobileagent.fixture/.MainActivity"
IDLE_EXIT_MS = 10_000
BIG_NODES = 573






class Bench:
    def __init__(self, device: Any, jar: AgentJar, serial: str, emulator: bool) -> None:
        self.device = device
        self.jar = jar
        self.serial = serial
        self.emulator = emulator
        self.records = Records()

    def open(self, tab: str) -> None:
        out = self.device.shell_until(f"am start -W -S -n {COMPONENT} --es tab {tab}", time.monotonic() + 30)
        if out.exit_code != 0:
            raise SystemExit(f"am start failed: {out.text()}")

    @contextlib.contextmanager
    def session(self, choice: ControllerChoice | None = None) -> Iterator[tuple[Session, Mirror]]:
        selection = select_paths(self.serial, self.emulator, choice or ControllerChoice.Off())
        attached = Deployer(self.device, self.jar, self.records, DeployOptions(idle_exit_ms=IDLE_EXIT_MS)).attach()
        session = Session.start_selected(attached, selection, device=self.device)
        try:
            yield session, Mirror(session.backend(), timeout=15.0)
        finally:
            with contextlib.suppress(Exception):
                session.stop()

    def big_composed(self) -> None:
        """Open the Big tab and wait until a read shows all its nodes."""
        self.open("Big")
        with self.session() as (_, screen):
            screen.wait_for(text="Cell 500")
        self.records = Records()


def first_snapshot(bench: Bench, runs: int) -> list[float]:
    bench.big_composed()
    times = []
    for _ in range(runs):
        with bench.session() as (_, screen):
            took, view = timed_once(screen.snapshot)
            assert view.snapshot.node_count == BIG_NODES, view.snapshot.node_count
            times.append(took)
        bench.records = Records()  # a fresh agent each time: its first read is cold
    return times


def taps(bench: Bench, screen: Mirror, runs: int) -> tuple[list[float], list[float]]:
    login, big = [], []
    screen.wait_for(text="Cell 500")
    for _ in range(runs):
        tab = screen.find(id="tab_login")
        took, _ = timed_once(lambda tab=tab: (tab.tap(), screen.wait_for(id="login_button")))
        login.append(took)
        tab = screen.find(id="tab_big")
        took, _ = timed_once(lambda tab=tab: (tab.tap(), screen.wait_for(text="Cell 500")))
        big.append(took)
    return login, big


def killed(bench: Bench, runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        with bench.session() as (session, screen):
            screen.snapshot()
            pid = session.connection.hello.pid
            started = time.perf_counter()
            bench.device.shell(f"kill -9 {pid}")
            screen.wait_disconnected(timeout=5.0)
            times.append((time.perf_counter() - started) * 1000)
        bench.records = Records()
    return times


def measure(
    bench: Bench, runs: int, controller: Callable[[], contextlib.AbstractContextManager[ControllerChoice | None]]
) -> list[str]:
    lines = [f"first snapshot (573 nodes, cold)        {summary(first_snapshot(bench, runs), digits=3)}"]
    with bench.session() as (session, screen):
        screen.wait_for(text="Cell 500")
        view = screen.snapshot()
        assert view.node_count == BIG_NODES, view.node_count
        warm = [timed_once(screen.snapshot)[0] for _ in range(100)]
        lines.append(f"warm snapshot (replica, no read)        {summary(warm, digits=3)}")
        query = [timed_once(lambda: screen.find(text="Cell 500"))[0] for _ in range(200)]
        lines.append(f"selector query find(text=) over 573    {summary(query, digits=3)}")
        compound = [timed_once(lambda: screen.find_all(class_name="TextView", clickable=True, text_contains="99"))[0]
                    for _ in range(200)]
        lines.append(f"selector query, three criteria         {summary(compound, digits=3)}")
        snapshot = session.tree.latest
        assert snapshot is not None
        replica = Replica()
        replica.apply(snapshot)
        applying = [timed_once(lambda: replica.apply(snapshot))[0] for _ in range(50)]
        lines.append(f"applying a 573-node snapshot           {summary(applying, digits=3)}")
        raw = session.connection.request("snapshot", {"idle_timeout_ms": 0}, 10.0)
        parsing = [timed_once(lambda: parse_snapshot(raw, scale=2.625, reason=ReadReason.POLL, read_at=0.0))[0]
                   for _ in range(50)]
        lines.append(f"parsing a 573-node snapshot (JSON)     {summary(parsing, digits=3)}")
        cell = screen.find(text="Cell 1")
        acks = []
        for _ in range(20):
            screen.snapshot()  # the read the previous tap owes, outside the timing
            acks.append(timed_once(cell.tap)[0])
        lines.append(f"tap acknowledged through the mirror    {summary(acks, digits=3)}")
        login, big = taps(bench, screen, runs)
        lines.append(f"tap Login to the tree, agent path      {summary(login, digits=3)}")
        lines.append(f"tap Big to 500 cells, agent path       {summary(big, digits=3)}")
    with controller() as choice:
        if choice is None:
            lines.append("controller path: no controller (not an emulator with -grpc -grpc-use-token)")
        else:
            with bench.session(choice) as (session, screen):
                if session.controller is None:
                    lines.append(f"controller path unavailable: {session.warning}")
                else:
                    login, big = taps(bench, screen, runs)
                    # the seed's fast path (issue 27): each tap one streamInputEvent call with its press and lift
                    assert session.inputs.controller == 2 * runs and session.inputs.agent == 0, session.inputs
                    lines.append(f"tap Login to the tree, controller path {summary(login, digits=3)}")
                    lines.append(f"tap Big to 500 cells, controller path  {summary(big, digits=3)}")
    lines.append(f"killed agent to disconnected           {summary(killed(bench, runs), digits=3)}")
    return lines


def _virtual(lab: Any) -> Callable[[], contextlib.AbstractContextManager[ControllerChoice | None]]:
    """A controller double for the lab's device (which carries the fixture app and the agent double)."""
    from pytest_mobile_agent.emulator.discovery import DISCOVERY_DIR_ENV
    from pytest_mobile_agent.virtual.fronts.controller import ControllerDouble

    device = lab.device(lab.serials[0])

    @contextlib.contextmanager
    def controller() -> Iterator[ControllerChoice | None]:
        with tempfile.TemporaryDirectory() as directory:
            previous = os.environ.get(DISCOVERY_DIR_ENV)
            os.environ[DISCOVERY_DIR_ENV] = directory
            ctl = ControllerDouble(device.display, serial=lab.serials[0], discovery_dir=Path(directory)).start()
            try:
                yield ControllerChoice.Auto()
            finally:
                ctl.stop()
                if previous is None:
                    os.environ.pop(DISCOVERY_DIR_ENV, None)
                else:
                    os.environ[DISCOVERY_DIR_ENV] = previous

    return controller


@contextlib.contextmanager
def _emulator_controller(serial: str) -> Iterator[ControllerChoice | None]:
    yield ControllerChoice.Auto() if serial.startswith("emulator-") else None


ControllerContext = Callable[[], contextlib.AbstractContextManager[ControllerChoice | None]]


@contextlib.contextmanager
def target(serial: str) -> Iterator[tuple[Any, AgentJar, str, ControllerContext]]:
    """The device to measure on (`virtual`: one in a lab of its own, wired with the fixture app, the
    agent double and a controller double; else the serial on the local adb server), the agent jar
    to deploy, the serial, and the controller to use for the controller path."""
    with agent_target(serial) as agent:
        if agent.lab is not None:
            controller = _virtual(agent.lab)
        else:
            def controller() -> contextlib.AbstractContextManager[ControllerChoice | None]:
                return _emulator_controller(serial)
        yield agent.device, agent.jar, agent.serial, controller


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--serial", default="virtual", help="a serial on the local adb server, or `virtual`")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with target(args.serial) as (device, jar, serial, controller):
        print(f"session on {serial} ({jar.describe()}), load average {os.getloadavg()[0]:.2f}")
        bench = Bench(device, jar, serial, emulator=serial.startswith("emulator-"))
        for line in measure(bench, args.runs, controller):
            print("  " + line)
        with contextlib.suppress(Exception):
            device.shell("am force-stop dev.mobileagent.fixture")
    return 0


if __name__ == "__main__":
    sys.exit(main())
