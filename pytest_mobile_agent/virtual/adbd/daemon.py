"""adbd on the device: its process, the state its services share (the reverse rules, the way back
to the host, the terminals it hands out) and its restart as root or not.

The services an OPEN reaches are virtual/adbd/services.py; each runs as adbd's uid (the shell user,
or root after `adb root`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pytest_mobile_agent.virtual.kernel.binaries import SEARCH_PATH, Program
from pytest_mobile_agent.virtual.kernel.process import Process
from pytest_mobile_agent.virtual.kernel.sockets import Listener
from pytest_mobile_agent.virtual.kernel.streams import ByteStream
from pytest_mobile_agent.virtual.kernel.system import System

#: the way back to the host for a reverse rule: connector(LOCAL) -> a byte stream to it
HostConnector = Callable[[str], ByteStream]

SHELL_UID = 2000


@dataclass
class ReverseRule:
    remote: str
    local: str
    listener: Listener
    connector: HostConnector | None = None  # the front that installed the rule


class Adbd:
    """The daemon's state on one device."""

    def __init__(self, system: System, process: Process, shell_program: Program, transport_name: str) -> None:
        self.system = system
        self.process = process
        self.shell_program = shell_program  # /system/bin/sh, what the shell services start
        self.transport_name = transport_name  # the host connection's name in `reverse:list-forward`
        self.reverse_rules: dict[str, ReverseRule] = {}
        #: called when adbd restarts (`adb root`): the fronts drop their transports
        self.restart_listeners: list[Callable[[], None]] = []
        self.restarting_as_root: bool | None = None
        """Set from `root:`/`unroot:` until the restart is done (`restarted`): the uid to come."""
        self._host_connector: HostConnector | None = None
        self._pts = 0
        process.env = {"PATH": ":".join(SEARCH_PATH)}

    @property
    def uid(self) -> int:
        return self.process.uid

    def shell_environment(self) -> dict[str, str]:
        """The environment adbd gives the shells it starts."""
        return {
            "PATH": ":".join(SEARCH_PATH),
            "HOME": "/",
            "TMPDIR": "/data/local/tmp",
            "USER": "shell",
            "LOGNAME": "shell",
            "SHELL": "/bin/sh",
            "HOSTNAME": self.system.properties.get("ro.product.device", "emu64xa"),
            "ANDROID_DATA": "/data",
            "ANDROID_ROOT": "/system",
            "ANDROID_STORAGE": "/storage",
            "ANDROID_ART_ROOT": "/apex/com.android.art",
            "ANDROID_I18N_ROOT": "/apex/com.android.i18n",
            "ANDROID_TZDATA_ROOT": "/apex/com.android.tzdata",
            "ANDROID_ASSETS": "/system/app",
            "EXTERNAL_STORAGE": "/sdcard",
            "ASEC_MOUNTPOINT": "/mnt/asec",
            "DOWNLOAD_CACHE": "/data/cache",
            "BOOTCLASSPATH": "/apex/com.android.art/javalib/core-oj.jar:/apex/com.android.art/javalib/core-libart.jar"
                             ":/system/framework/framework.jar",
            "SYSTEMSERVERCLASSPATH": "/system/framework/services.jar",
        }

    def allocate_pts(self) -> str:
        with self.system.kernel.lock:
            name = f"/dev/pts/{self._pts}"
            self._pts += 1
            return name

    # --- the way back to the host ----------------------------------------------------------------

    def set_host_connector(self, connector: HostConnector | None) -> None:
        """The way back to the host for reverse rules: connector(LOCAL) -> a byte stream."""
        self._host_connector = connector

    def host_connector(self) -> HostConnector | None:
        return self._host_connector

    def remove_reverse_rules(self, connector: HostConnector | None = None) -> None:
        """Drop the reverse rules a front installed (all of them without a connector), as adbd
        drops a transport's listeners when that host connection goes away."""
        for name, rule in list(self.reverse_rules.items()):
            if connector is None or rule.connector is connector:
                self.reverse_rules.pop(name, None)
                rule.listener.close()

    # --- restart ---------------------------------------------------------------------------------

    def restart(self, *, root: bool) -> None:
        """adbd restarting as root (or not), as init does when service.adb.root changes: the old
        adbd exits, so its transports drop, and the new one runs as the new uid. With fronts
        (restart_listeners) the restart lasts until a front has dropped its transports and calls
        `restarted`: until then a service is refused, as a real adbd that is exiting answers none
        (a shell never runs as the new uid on the old transport); with none it is done at once."""
        self.system.properties["service.adb.root"] = "1" if root else "0"
        self.restarting_as_root = root
        if not self.restart_listeners:
            self.restarted()
        for listener in list(self.restart_listeners):
            listener()

    def restarted(self) -> None:
        """The new adbd is up (the fronts dropped the old one's transports): services run as its uid."""
        root = self.restarting_as_root
        if root is None:
            return
        self.process.uid = self.process.gid = 0 if root else SHELL_UID
        self.restarting_as_root = None
