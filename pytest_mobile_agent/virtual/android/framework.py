"""What the Android tools (`am`, `pm`, `wm`, `input`, `dumpsys`, `logcat`, `uiautomator`,
`app_process`...) reach of the device: the framework's services over the kernel's, nothing else."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from pytest_mobile_agent.virtual.android.activity import ActivityManager
from pytest_mobile_agent.virtual.android.automation import AutomationSlot
from pytest_mobile_agent.virtual.android.display import Display
from pytest_mobile_agent.virtual.android.hwui import GraphicsStats
from pytest_mobile_agent.virtual.android.logcat import Logcat
from pytest_mobile_agent.virtual.android.packages import PackageManager
from pytest_mobile_agent.virtual.android.state import DeviceState
from pytest_mobile_agent.virtual.kernel.process import Process
from pytest_mobile_agent.virtual.kernel.system import System

#: the `main` of a class app_process can start: `main(proc, args) -> status`
AppProcessMain = Callable[[Process, list[str]], int]


@dataclass(frozen=True)
class Framework:
    """The Android services of one device, and the kernel's below them."""

    system: System
    logcat: Logcat
    activity: ActivityManager
    packages: PackageManager
    display: Display
    automation: AutomationSlot
    #: settings namespace -> key -> value (android/settings.py)
    settings: dict[str, dict[str, str]]
    #: the classes app_process can start, by name (the agent double registers its Main)
    app_process_mains: dict[str, AppProcessMain]
    #: the monotonic time the device booted at (uptime stamps)
    booted: float
    #: what a test changes: power, rotation, battery, location, radios, night mode, notifications
    state: DeviceState
    #: the apps' renderer counters and UI holdings (android/hwui.py): dumpsys gfxinfo and meminfo
    graphics: GraphicsStats = field(default_factory=lambda: GraphicsStats(time.monotonic_ns))


#: an Android tool: `tool(framework, proc) -> status`
FrameworkProgram = Callable[[Framework, Process], int]
