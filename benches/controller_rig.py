"""A session on the virtual device with its emulator controller, for the benches that drive the
controller (run as scripts, so `benches/` is on sys.path): one virtual device, the fixture app on
a tab, the controller double serving its display, the stand-in agent attached, and a session that
chose the controller. Everything is stopped on the way out, the double that is `rig.double` then
(a bench may replace it)."""

from __future__ import annotations

import contextlib
import os
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_mobile_agent.adb import AdbServer
from pytest_mobile_agent.agent import AgentJar, Deployer, DeployOptions, Records
from pytest_mobile_agent.emulator.discovery import DISCOVERY_DIR_ENV
from pytest_mobile_agent.session import ControllerChoice, Session, select_paths
from pytest_mobile_agent.virtual import VirtualLab
from pytest_mobile_agent.virtual.fronts.controller import ControllerDouble


@dataclass
class ControllerRig:
    session: Session
    double: ControllerDouble
    display: Any
    serial: str
    discovery_dir: Path


@contextlib.contextmanager
def controller_rig(tab: str) -> Iterator[ControllerRig]:
    lab = VirtualLab.start(1)
    try:
        serial = lab.serials[0]
        device = AdbServer(host="127.0.0.1", port=lab.adb_port).device(serial)
        display = lab.device(serial).display
        out = device.shell_until(f"am start -W -S -n dev.mobileagent.fixture/.MainActivity --es tab {tab}",
                                 time.monotonic() + 30)
        if out.exit_code != 0:
            raise SystemExit(f"am start failed: {out.text()}")
        with tempfile.TemporaryDirectory() as directory:
            os.environ[DISCOVERY_DIR_ENV] = directory
            double = ControllerDouble(display, serial=serial, discovery_dir=Path(directory)).start()
            try:
                attached = Deployer(device, AgentJar.stand_in(), Records(), DeployOptions(idle_exit_ms=10_000)).attach()
                session = Session.start_selected(attached, select_paths(serial, True, ControllerChoice.Auto()),
                                                 device=device)
            except BaseException:
                double.stop()
                raise
            rig = ControllerRig(session, double, display, serial, Path(directory))
            try:
                yield rig
            finally:
                session.stop()
                rig.double.stop()
    finally:
        lab.stop()
