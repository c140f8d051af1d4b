"""The device control of one target (control/): its shell, its emulator's controller and console,
its agent and its screen, put together as `control.Paths`.

The console is the emulator's on this host: a virtual device's lab says where its console is and
holds its token (`stack/virtual_lab.start_lab` serves one for each device), a real emulator's is the number in
its serial (`emulator-5554`: 5554; adb's own console.cpp reads it so), with the user's
`~/.emulator_console_auth_token`. A target on another host's adb server has none here.
"""

from __future__ import annotations

from pytest_mobile_agent.adb import Device
from pytest_mobile_agent.agent import Attached
from pytest_mobile_agent.control import ConsoleAccess, DeviceControl, Paths
from pytest_mobile_agent.emulator import console_port
from pytest_mobile_agent.mirror import Mirror
from pytest_mobile_agent.mirror.steps import Steps
from pytest_mobile_agent.session import Selection
from pytest_mobile_agent.session.ownership import adb_server_on_this_host
from pytest_mobile_agent.stack.targets import AndroidTarget


def console_access(target: AndroidTarget, selection: Selection) -> ConsoleAccess | None:
    if target.lab is not None:
        port = target.lab.console_port(target.serial)
        return ConsoleAccess(port, target.lab.console_token_path) if port is not None else None
    if not target.emulator or not adb_server_on_this_host(target.server.host):
        return None
    endpoint = selection.controller.endpoint if selection.controller is not None else None
    port = endpoint.console_port if endpoint is not None and endpoint.console_port else console_port(target.serial)
    return ConsoleAccess(port) if port else None


def device_control(target: AndroidTarget, device: Device, selection: Selection, attached: Attached | None,
                   screen: Mirror | None, steps: Steps | None = None) -> DeviceControl:
    """The target's device control; `restore()` it before the automation lock is released."""
    paths = Paths(device, emulator=target.emulator, controller=selection.controller,
                  console=console_access(target, selection),
                  agent=attached.connection if attached is not None else None, screen=screen)
    return DeviceControl(paths, steps)
