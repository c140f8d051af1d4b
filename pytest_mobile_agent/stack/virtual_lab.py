"""The one seam through which the driver starts the double: a lab of virtual devices, each with
its emulator console (as every running emulator serves one), and, with `--emulator-controller
auto`, an emulator controller double per device whose discovery file is where the emulator client
looks (MOBILE_AGENT_AVD_DISCOVERY_DIR, restored when the lab stops).

The console's auth token is the lab's own (`<lab.home>/.emulator_console_auth_token`, 0600 in a
0700 folder), as an emulator's is the user's `~/.emulator_console_auth_token`: `stack/control.py`
hands its path to the device control, so `set_network_speed` and `set_network_delay` work on
`--android-serial virtual` as on an emulator. The console listens on a free loopback port, not
the serial's 5554: that port may be an emulator's or another lab's on this host."""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass, field

from pytest_mobile_agent.virtual import VirtualLab
from pytest_mobile_agent.virtual.fronts.controller import AvdConfig, ControllerDouble

DISCOVERY_ENV = "MOBILE_AGENT_AVD_DISCOVERY_DIR"

__all__ = ["StartedLab", "VirtualLab", "start_lab", "virtual_device_facts"]


@dataclass
class StartedLab:
    """A lab and its controllers. Everything it keeps on disk is in the lab's own folder
    (`lab.home`: the console's token, the controllers' discovery files, the agents' records), which
    its `stop` removes, and which the next lab removes when this process is killed first."""

    lab: VirtualLab
    controllers: list[ControllerDouble] = field(default_factory=list)
    _announced_discovery: bool = False
    _saved_discovery: str | None = None

    def stop(self) -> None:
        try:
            for controller in self.controllers:
                with contextlib.suppress(Exception):
                    controller.stop()
            self.controllers.clear()
            if self._announced_discovery:
                if self._saved_discovery is None:
                    os.environ.pop(DISCOVERY_ENV, None)
                else:
                    os.environ[DISCOVERY_ENV] = self._saved_discovery
                self._announced_discovery = False
        finally:
            self.lab.stop()


def virtual_device_facts() -> tuple[str, int]:
    """The model and API level every virtual device reports, known without starting one."""
    from pytest_mobile_agent.virtual.device import default_facts

    return default_facts()


def start_lab(count: int, *, real_adb: bool, controllers: bool) -> StartedLab:
    started = StartedLab(VirtualLab.start(count, real_adb=real_adb))
    try:
        for serial in started.lab.serials:
            started.lab.serve_console(serial)
        if controllers:
            _start_controllers(started)
    except BaseException:
        started.stop()
        raise
    return started


def _start_controllers(started: StartedLab) -> None:
    """An emulator controller double per virtual device, found as an emulator's would be."""
    discovery = started.lab.folder("avd")
    started._saved_discovery = os.environ.get(DISCOVERY_ENV)
    started._announced_discovery = True
    os.environ[DISCOVERY_ENV] = str(discovery)
    for serial in started.lab.serials:
        if serial.startswith("emulator-"):
            device = started.lab.device(serial)
            double = ControllerDouble(device.display, serial=serial, avd=AvdConfig.of_device(device),
                                      hardware=device.state, discovery_dir=discovery)
            started.controllers.append(double.start())
