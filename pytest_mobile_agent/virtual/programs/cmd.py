"""`cmd SERVICE ARGS...`: the binder services' shell commands; `cmd activity|package|window` are
am, pm and wm (programs/activity.py, programs/packages.py, programs/window.py); the device state's
services (`location`, `connectivity`, `wifi`, `phone`, `uimode`, `statusbar`, `notification`) are
in programs/sensors.py and programs/devicestate.py."""

from __future__ import annotations

from pytest_mobile_agent.virtual.android.framework import Framework
from pytest_mobile_agent.virtual.kernel import process as pm
from pytest_mobile_agent.virtual.programs import devicestate, sensors
from pytest_mobile_agent.virtual.programs.activity import am
from pytest_mobile_agent.virtual.programs.packages import pm_
from pytest_mobile_agent.virtual.programs.window import wm

STATE_SERVICES = {
    "location": sensors.cmd_location, "connectivity": devicestate.cmd_connectivity, "wifi": devicestate.cmd_wifi,
    "phone": devicestate.cmd_phone, "uimode": devicestate.cmd_uimode, "statusbar": devicestate.cmd_statusbar,
    "notification": devicestate.cmd_notification,
}


def cmd(framework: Framework, proc: pm.Process) -> int:
    args = proc.argv[1:]
    if not args:
        proc.stderr.write("cmd: No service specified; use -l to list all running services. "
                          "Use -w to start and wait for a service.\n")
        return 20
    service, rest = args[0], args[1:]
    if service == "activity":
        return am(framework, proc, rest)
    if service == "package":
        return pm_(framework, proc, rest)
    if service == "window":
        return wm(framework, proc, rest)
    if service in STATE_SERVICES:
        return STATE_SERVICES[service](framework, proc, rest)
    proc.stderr.write(f"cmd: Can't find service: {service}\n")
    return 20
