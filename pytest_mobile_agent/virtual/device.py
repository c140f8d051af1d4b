"""VirtualDevice: the model of one API 36 emulator, what adbd and the device's processes do.

The fronts (the adb-server endpoint, the adbd transport endpoint) reach it through one seam:

    stream = device.open_service(service, peer_uid=2000, host=None) -> DeviceStream

where `service` is the string adbd receives in an OPEN and the stream carries the service's bytes
(`send(bytes)`, `recv(timeout)` returning b"" at the end and raising errors.Timeout when nothing
came in time, `close()`):

* `shell,v2,raw:CMD`, `shell,v2,pty:CMD`, `shell:CMD`, `exec:CMD` (virtual/shell_service.py);
* `abb_exec:SERVICE\0ARG...` (raw, like exec:) and `abb:SERVICE\0ARG...` (shell protocol v2): the
  binder call as `cmd SERVICE ARG...` runs it;
* `sync:` (virtual/sync_service.py);
* `localabstract:NAME`, `tcp:PORT` (`tcp:HOST:PORT` with a loopback host), connecting to a listener
  on the device (virtual/sockets.py);
* `reverse:forward:[norebind:]REMOTE;LOCAL`, `reverse:killforward:REMOTE`,
  `reverse:killforward-all`, `reverse:list-forward`, answered as adbd answers them: one `OKAY`
  (adbd writes no first OKAY: the adb server's own OKAY for the opened stream is the client's
  first), then for `tcp:0` the port bound; `FAIL` + adbd's text otherwise; list-forward is the
  length-prefixed list alone. The device then listens on REMOTE; a connection to it calls
  `host(LOCAL)`, the callable the front gave with the open_service that installed the rule (else
  the latest one given, or `set_host_connector`'s), which returns a byte stream to the host side,
  and the two are joined.

A service the device does not know, or a connection nobody listens for, raises errors.Closed from
open_service (the front answers with CLSE, or FAIL with the message). The uid of the shell is
`peer_uid` (2000, the shell user adbd runs as; 0 after `adb root`).

Extension points: `programs.register(name, fn)`, `app_process_mains[MAIN] = fn`,
`sockets.listen_abstract(name, owner_pid)`, `automation` (the UI-automation slot), `activity`
(packages and the activity manager), `display`, `log(tag, message)` (logcat's buffer).

Pids: init is 1, the system processes have fixed low pids, adbd is 412 (its children are the
shells), and new processes count up from 3000 (per device: two devices have independent tables,
file systems and properties, and each serial `emulator-5554`, `emulator-5556`... has its own
`ro.serialno` `EMULATOR36X1X..`).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from pytest_mobile_agent.virtual.adbd.daemon import Adbd, HostConnector, ReverseRule
from pytest_mobile_agent.virtual.adbd.services import open_service as open_adbd_service
from pytest_mobile_agent.virtual.adbd.shell_service import ShellSession, run_to_completion
from pytest_mobile_agent.virtual.android.activity import ActivityManager
from pytest_mobile_agent.virtual.android.automation import AutomationSlot
from pytest_mobile_agent.virtual.android.display import Display
from pytest_mobile_agent.virtual.android.framework import AppProcessMain, Framework
from pytest_mobile_agent.virtual.android.logcat import Logcat
from pytest_mobile_agent.virtual.android.packages import PackageManager
from pytest_mobile_agent.virtual.android.properties import default_properties
from pytest_mobile_agent.virtual.android.settings import default_settings
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

log = logging.getLogger("pytest_mobile_agent.virtual")


ADBD_PID = 412

SYSTEM_PROCESSES: tuple[tuple[int, int, int, list[str]], ...] = (
    (1, 0, 0, ["/system/bin/init", "second_stage"]),
    (2, 0, 0, ["[kthreadd]"]),
    (160, 1, 0, ["/system/bin/ueventd"]),
    (280, 1, 1036, ["/system/bin/logd"]),
    (281, 1, 1000, ["/system/bin/servicemanager"]),
    (282, 1, 1000, ["/system/bin/hwservicemanager"]),
    (300, 1, 0, ["/system/bin/vold", "--blkid_context=u:r:blkid:s0"]),
    (350, 1, 0, ["zygote64"]),
    (351, 1, 0, ["zygote"]),
    (380, 1, 1000, ["/system/bin/surfaceflinger"]),
    (ADBD_PID, 1, 2000, ["/apex/com.android.adbd/bin/adbd", "--root_seclabel=u:r:su:s0"]),
    (620, 350, 1000, ["system_server"]),
    (780, 350, 10069, ["com.android.systemui"]),
    (810, 350, 1001, ["com.android.phone"]),
    (905, 350, 10089, ["com.google.android.inputmethod.latin"]),
    (1010, 350, 10112, ["com.google.android.apps.nexuslauncher"]),
)


# (VSZ KiB, RSS KiB, WCHAN) of the resident processes, of the kind an API 36 emulator's ps shows.
SYSTEM_MEMORY: dict[int, tuple[int, int, str]] = {
    1: (10943540, 12808, "do_epoll_wait"), 2: (0, 0, "kthreadd"),
    160: (10874532, 4172, "do_epoll_wait"), 280: (10912604, 8936, "__do_sys_rt_sigtimedwait"),
    281: (10881808, 5400, "do_epoll_wait"), 282: (10882968, 5828, "do_epoll_wait"),
    300: (10939720, 9012, "do_epoll_wait"), 350: (14876176, 138404, "do_sys_poll"),
    351: (1741208, 118756, "do_sys_poll"), 380: (11296928, 30912, "do_epoll_wait"),
    ADBD_PID: (10920476, 7744, "do_epoll_wait"), 620: (17362312, 395220, "do_epoll_wait"),
    780: (15502224, 213456, "do_epoll_wait"), 810: (15047688, 138972, "do_epoll_wait"),
    905: (14985152, 152060, "do_epoll_wait"), 1010: (15254764, 187212, "do_epoll_wait"),
}


BOOT_LOG: tuple[tuple[int, str, str, str], ...] = (
    (350, "D", "AndroidRuntime", ">>>>>> START com.android.internal.os.ZygoteInit uid 0 <<<<<<"),
    (620, "I", "SystemServer", "InitBeforeStartServices"),
    (620, "I", "SystemServiceManager", "Starting com.android.server.display.DisplayManagerService"),
    (620, "I", "ActivityManager", "System now ready"),
    (620, "I", "ActivityManager", "Start proc 780:com.android.systemui/u0a69 for service "
     "{com.android.systemui/com.android.systemui.SystemUIService}"),
    (620, "I", "ActivityManager", "Start proc 1010:com.google.android.apps.nexuslauncher/u0a112 for top-activity "
     "{com.google.android.apps.nexuslauncher/com.google.android.apps.nexuslauncher.NexusLauncherActivity}"),
    (620, "I", "ActivityTaskManager", "Displayed com.google.android.apps.nexuslauncher/.NexusLauncherActivity for user 0: +2s114ms"),
    (620, "I", "ActivityManager", "Finished processing BOOT_COMPLETED for u0"),
)


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
        self.kernel = Kernel()
        self.properties: dict[str, str] = default_properties(serial, index)
        if properties:
            self.properties.update(properties)
        self.fs = FileSystem()
        self.processes = pm.ProcessTable(self.kernel, first_pid=3000, device=self)
        self.programs = ProgramRegistry()
        self.sockets = SocketNamespace(self.kernel, self.processes)
        self.system = System(self.kernel, self.fs, self.processes, self.programs, self.sockets, self.properties)
        self.boot_monotonic = time.monotonic()
        self.logcat = Logcat(self.kernel, default_pid=ADBD_PID)
        self.display = Display()
        self.activity = ActivityManager(self.processes, self.logcat)
        self.packages = PackageManager(self.fs, self.properties, self.activity, self.logcat)
        self.automation = AutomationSlot(self.kernel, self.processes, self.display)
        self.app_process_mains: dict[str, AppProcessMain] = {}
        self.framework = Framework(self.system, self.logcat, self.activity, self.packages, self.display,
                                   self.automation, default_settings(), self.app_process_mains, self.boot_monotonic)
        self._start_system()
        self._log_boot()
        self.sh_program: Program = sh_main(self.system)
        self.adbd_daemon = Adbd(self.system, self.adbd, self.sh_program, f"host-{self.index + 1}")
        self._install_programs()
        mount_procfs(self.fs, self.processes, self.boot_monotonic)
        self._install_extensions()

    # --- setup --------------------------------------------------------------------------------------

    def _start_system(self) -> None:
        for pid, ppid, uid, argv in SYSTEM_PROCESSES:
            self.processes.add_system(pid, ppid, argv, uid, memory=SYSTEM_MEMORY.get(pid))
        adbd = self.processes.get(ADBD_PID)
        assert adbd is not None
        self.adbd = adbd

    def _log_boot(self) -> None:
        """What logcat's buffer holds on an emulator that finished booting (a few of its lines)."""
        for pid, priority, tag, message in BOOT_LOG:
            self.log(tag, message, priority, pid)

    def _install_programs(self) -> None:
        self.programs.on_register.append(lambda name: lay_out_in_system_bin(self.fs, name))
        self.programs.register("sh", self.sh_program)
        self.programs.register("mksh", self.sh_program)
        install_programs(self.programs, self.framework)

    def _install_extensions(self) -> None:
        self._install_apps()

    def _install_apps(self) -> None:
        """The Compose fixture app (its UI on the display) and the agent double as app_process's
        dev.mobileagent.agent.Main, as an emulator image with them installed would have."""
        from pytest_mobile_agent.virtual import agent

        agent.install(self)

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

    @property
    def transport_name(self) -> str:
        return self.adbd_daemon.transport_name

    def remove_reverse_rules(self, connector: HostConnector | None = None) -> None:
        self.adbd_daemon.remove_reverse_rules(connector)

    # --- conveniences for in-process users ---------------------------------------------------------

    def shell(self, command: str, *, stdin: bytes = b"", timeout: float = 10.0, uid: int = 2000) -> tuple[int, bytes, bytes]:
        """Run a command as `adb shell` would (shell v2, raw): (status, stdout, stderr)."""
        session = ShellSession(self.adbd_daemon, ["v2", "raw"], command, uid)
        try:
            return run_to_completion(session, stdin, timeout)
        finally:
            session.close()

    def close(self) -> None:
        """End every process started since boot (SIGKILL), as powering the emulator off would."""
        for proc in self.processes.processes():
            if proc.pid >= 3000:
                proc.deliver(pm.SIGKILL)
        self.sockets.close_all()
