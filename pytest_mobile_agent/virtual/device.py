"""VirtualDevice: one API 36 emulator, assembled from the layers (see docs/architecture.md,
"virtual"). This module is the composition root: it makes the kernel's services, boots the
system processes, installs the programs, starts adbd's side, and plugs in the UI and the agent
double; the behaviour lives in the rooms below.

The fronts (the adb-server endpoint, the adbd transport endpoint) reach it through one seam:

    stream = device.open_service(service, peer_uid=2000, host=None) -> DeviceStream

where `service` is the string adbd receives in an OPEN (virtual/adbd/services.py lists them) and
the stream carries the service's bytes (`send(bytes)`, `recv(timeout)` returning b"" at the end
and raising errors.Timeout when nothing came in time, `close()`). `host` is the front's way back to
the host for reverse rules: `host(LOCAL)` returns a byte stream to the host side. A service the
device does not know, or a connection nobody listens for, raises errors.Closed (the front answers
with CLSE, or FAIL with the message). Services run as adbd's uid: 2000, the shell user; 0 after
`adb root`.

What the device holds, typed: the kernel's services (`kernel`, `fs`, `processes`, `programs`,
`sockets`, `properties`, bundled as `system`), the framework's (`logcat`, `display`, `activity`,
`packages`, `automation`, `app_process_mains`, bundled as `framework`), adbd (`adbd`, its process;
`adbd_daemon`, its state) and the UI (`ui`). Pids: init is 1, the system processes have fixed low
pids, adbd is 412, and new processes count up from 3000 (per device: two devices have independent
tables, file systems and properties, and each serial `emulator-5554`, `emulator-5556`... has its
own `ro.serialno` `EMULATOR36X1X..`).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from pytest_mobile_agent.virtual import agent
from pytest_mobile_agent.virtual.adbd.daemon import Adbd, HostConnector, ReverseRule
from pytest_mobile_agent.virtual.adbd.services import open_service as open_adbd_service
from pytest_mobile_agent.virtual.adbd.shell_service import ShellSession, run_to_completion
from pytest_mobile_agent.virtual.android.activity import ActivityManager
from pytest_mobile_agent.virtual.android.automation import AutomationSlot
from pytest_mobile_agent.virtual.android.boot import ADBD_PID, boot
from pytest_mobile_agent.virtual.android.display import Display
from pytest_mobile_agent.virtual.android.framework import AppProcessMain, Framework
from pytest_mobile_agent.virtual.android.logcat import Logcat
from pytest_mobile_agent.virtual.android.packages import PackageManager
from pytest_mobile_agent.virtual.android.properties import default_properties
from pytest_mobile_agent.virtual.android.settings import default_settings
from pytest_mobile_agent.virtual.android.state import DeviceState
from pytest_mobile_agent.virtual.kernel import process as pm
from pytest_mobile_agent.virtual.kernel.binaries import (
    Program,
    ProgramRegistry,
    lay_out_in_system_bin,
)
from pytest_mobile_agent.virtual.kernel.fs import FileSystem
from pytest_mobile_agent.virtual.kernel.numbers import is_decimal
from pytest_mobile_agent.virtual.kernel.procfs import KERNEL_BUILD, KERNEL_RELEASE, mount_procfs
from pytest_mobile_agent.virtual.kernel.sockets import SocketNamespace
from pytest_mobile_agent.virtual.kernel.streams import ByteStream, Kernel
from pytest_mobile_agent.virtual.kernel.system import System
from pytest_mobile_agent.virtual.programs import install as install_programs
from pytest_mobile_agent.virtual.shell.main import sh_main
from pytest_mobile_agent.virtual.ui.attach import attach, display_geometry
from pytest_mobile_agent.virtual.ui.emulator import EmulatorUi
from pytest_mobile_agent.virtual.ui.frame_timeline import attach_frames
from pytest_mobile_agent.virtual.ui.shade import attach_state
from pytest_mobile_agent.virtual.web.engine import WebEngine

log = logging.getLogger("pytest_mobile_agent.virtual")

FIRST_PID = 3000  # where the pids of the processes started after boot begin


def default_facts() -> tuple[str, int]:
    """The model and API level every virtual device reports (its ro.product.model and
    ro.build.version.sdk), known without starting one."""
    properties = default_properties("emulator-5554", 0)
    return properties["ro.product.model"], int(properties["ro.build.version.sdk"])


class VirtualDevice:
    """One virtual API 36 emulator."""

    kernel_release = KERNEL_RELEASE
    kernel_build = KERNEL_BUILD

    def __init__(self, serial: str = "emulator-5554", *, index: int | None = None,
                 properties: dict[str, str] | None = None) -> None:
        self.serial = serial
        if index is None:
            tail = serial.rsplit("-", 1)[-1]
            index = (int(tail) - 5554) // 2 if is_decimal(tail) else 0
        self.index = index
        # the kernel
        self.kernel = Kernel()
        self.properties: dict[str, str] = default_properties(serial, index)
        if properties:
            self.properties.update(properties)
        self.fs = FileSystem()
        self.processes = pm.ProcessTable(self.kernel, first_pid=FIRST_PID)
        self.programs = ProgramRegistry()
        self.sockets = SocketNamespace(self.kernel, self.processes)
        self.system = System(self.kernel, self.fs, self.processes, self.programs, self.sockets, self.properties)
        self.boot_monotonic = time.monotonic()
        # the framework
        self.logcat = Logcat(self.kernel, default_pid=ADBD_PID)
        self.display = Display()
        self.activity = ActivityManager(self.processes, self.logcat)
        self.packages = PackageManager(self.fs, self.properties, self.activity, self.logcat)
        self.automation = AutomationSlot(self.kernel, self.processes, self.display)
        self.app_process_mains: dict[str, AppProcessMain] = {}
        settings = default_settings()
        self.state = DeviceState(settings, self.display)
        self.framework = Framework(self.system, self.logcat, self.activity, self.packages, self.display,
                                   self.automation, settings, self.app_process_mains, self.boot_monotonic,
                                   self.state)
        # booted: the resident processes, adbd, the programs in /system/bin, /proc
        self.adbd: pm.Process = boot(self.processes, self.logcat)
        self.sh_program: Program = sh_main(self.system)
        self.adbd_daemon = Adbd(self.system, self.adbd, self.sh_program, f"host-{self.index + 1}")
        self._install_programs()
        mount_procfs(self.fs, self.processes, self.boot_monotonic, self.sockets)
        # the image's apps: the agent double as app_process's dev.mobileagent.agent.Main, the UI
        agent.register(self)
        self.ui = EmulatorUi(geometry=display_geometry(self.display))
        attach(self.ui, self.display, self.activity, self.packages, self.logcat)
        attach_state(self.ui, self.state, self.activity)
        attach_frames(self.ui, self.framework.graphics, self.activity)
        # web content: a headless chromium per process that shows some, started on its first page
        self.web = WebEngine(self.sockets, self.processes, self.properties, self.activity.pid_of)
        self.ui.web = self.web

    def _install_programs(self) -> None:
        self.programs.on_register.append(lambda name: lay_out_in_system_bin(self.fs, name))
        self.programs.register("sh", self.sh_program)
        self.programs.register("mksh", self.sh_program)
        install_programs(self.programs, self.framework)

    # --- properties and log ---------------------------------------------------------------------------

    def getprop(self, name: str, default: str = "") -> str:
        return self.properties.get(name, default)

    def setprop(self, name: str, value: str) -> None:
        self.properties[name] = value

    def log(self, tag: str, message: str, priority: str = "I", pid: int = 0, buffer: str = "main") -> None:
        """A line in logcat's buffer (android/logcat.py)."""
        self.logcat.log(tag, message, priority, pid, buffer)

    def log_lines(self) -> list[str]:
        return self.logcat.lines()

    # --- the seam ---------------------------------------------------------------------------------------

    def open_service(self, service: str, peer_uid: int | None = None, *, host: HostConnector | None = None,
                     host_connector: HostConnector | None = None) -> ByteStream:
        """The device side of an adbd service (virtual/adbd/services.py); errors.Closed when adbd
        would refuse it. `host` is the way back to the host for reverse rules."""
        return open_adbd_service(self.adbd_daemon, service, peer_uid, host or host_connector)

    def set_host_connector(self, connector: HostConnector | None) -> None:
        """The way back to the host for reverse rules: connector(LOCAL) -> a byte stream."""
        self.adbd_daemon.set_host_connector(connector)

    @property
    def reverse_rules(self) -> dict[str, ReverseRule]:
        return self.adbd_daemon.reverse_rules

    @property
    def adbd_restart_listeners(self) -> list[Callable[[], None]]:
        """Called when adbd restarts (`adb root`): the fronts drop their transports."""
        return self.adbd_daemon.restart_listeners

    def adbd_restarted(self) -> None:
        """A front dropped its transports after `adb root`/`unroot`: the new adbd is up."""
        self.adbd_daemon.restarted()

    @property
    def transport_name(self) -> str:
        return self.adbd_daemon.transport_name

    def remove_reverse_rules(self, connector: HostConnector | None = None) -> None:
        self.adbd_daemon.remove_reverse_rules(connector)

    # --- conveniences for in-process users ---------------------------------------------------------

    def shell(self, command: str, *, stdin: bytes = b"", timeout: float = 10.0,
              uid: int = 2000) -> tuple[int, bytes, bytes]:
        """Run a command as `adb shell` would (shell v2, raw): (status, stdout, stderr)."""
        session = ShellSession(self.adbd_daemon, ["v2", "raw"], command, uid)
        try:
            return run_to_completion(session, stdin, timeout)
        finally:
            session.close()

    def close(self) -> None:
        """End every process started since boot (SIGKILL), as powering the emulator off would, and
        every chromium showing their web content."""
        self.web.close()
        for proc in self.processes.processes():
            if proc.pid >= FIRST_PID:
                proc.deliver(pm.SIGKILL)
        self.sockets.close_all()


def ui_of(device: VirtualDevice) -> EmulatorUi:
    """The device's UI model. The device attaches it to its display, activity manager and package
    manager when it is made; callers that attached it themselves before can take it from here."""
    return device.ui
