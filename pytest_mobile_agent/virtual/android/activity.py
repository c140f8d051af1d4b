"""Packages and the activity manager of the virtual device.

`pm list packages` lists a realistic set of system packages plus every app installed with
`activity.install(app)`; `am start` launches only installed apps (there is no default app: the UI
model of the Compose fixture registers itself). An app implements the `App` protocol below.

`start(component, extras, stop_first, wait)` is what `am start [-S] [-W] -n PKG/ACT [--es K V]`
does: the app's process starts if it was not running (a cold launch, else WARM/HOT), the activity
comes to the front, listeners hear ("start", component) and ("foreground", component). Without an
installed app that has the activity it fails as am does: `Error type 3` and
`Error: Activity class {PKG/PKG.ACT} does not exist.`. `force_stop(package)` stops the app's
process and, when it was in front, the launcher comes back to the front.
"""

from __future__ import annotations

import logging
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from pytest_mobile_agent.virtual.android.logcat import Logcat
from pytest_mobile_agent.virtual.kernel import process as pm

log = logging.getLogger("pytest_mobile_agent.virtual")

LAUNCHER = "com.google.android.apps.nexuslauncher/.NexusLauncherActivity"
#: what an app killed by `am crash` throws, as Log.getStackTraceString prints it (the frames of an
#: API 35 image's ActivityThread/Looper/ZygoteInit; the line numbers vary between builds)
CRASHED_BY_ADB = (
    "android.app.RemoteServiceException$CrashedByAdbException: shell-induced crash\n"
    "\tat android.app.ActivityThread.throwRemoteServiceException(ActivityThread.java:2285)\n"
    "\tat android.app.ActivityThread.-$$Nest$mthrowRemoteServiceException(Unknown Source:0)\n"
    "\tat android.app.ActivityThread$H.handleMessage(ActivityThread.java:2556)\n"
    "\tat android.os.Handler.dispatchMessage(Handler.java:107)\n"
    "\tat android.os.Looper.loopOnce(Looper.java:232)\n"
    "\tat android.os.Looper.loop(Looper.java:317)\n"
    "\tat android.app.ActivityThread.main(ActivityThread.java:8705)\n"
    "\tat java.lang.reflect.Method.invoke(Native Method)\n"
    "\tat com.android.internal.os.RuntimeInit$MethodAndArgsCaller.run(RuntimeInit.java:580)\n"
    "\tat com.android.internal.os.ZygoteInit.main(ZygoteInit.java:886)\n"
)
SYSTEM_SERVER_PID = 620

SYSTEM_PACKAGES = (
    "android", "com.android.systemui", "com.android.settings", "com.android.shell",
    "com.android.phone", "com.android.providers.settings", "com.android.providers.media.module",
    "com.android.providers.contacts", "com.android.providers.downloads",
    "com.android.providers.telephony", "com.android.providers.calendar",
    "com.android.permissioncontroller", "com.google.android.permissioncontroller",
    "com.android.packageinstaller", "com.google.android.packageinstaller",
    "com.android.inputdevices", "com.android.keychain", "com.android.location.fused",
    "com.android.bluetooth", "com.android.nfc", "com.android.se", "com.android.server.telecom",
    "com.android.networkstack.tethering", "com.android.emulator.multidisplay",
    "com.android.emergency", "com.android.camera2", "com.android.chrome", "com.android.vending",
    "com.google.android.gms", "com.google.android.gsf", "com.google.android.apps.nexuslauncher",
    "com.google.android.inputmethod.latin", "com.google.android.apps.messaging",
    "com.google.android.dialer", "com.google.android.contacts", "com.google.android.deskclock",
    "com.google.android.calendar", "com.google.android.apps.photos", "com.google.android.youtube",
    "com.google.android.apps.maps", "com.google.android.gm", "com.google.android.documentsui",
    "com.google.android.webview", "com.google.android.tts", "com.google.android.apps.wallpaper",
    "com.google.android.apps.restore", "com.google.android.ext.services",
    "com.google.android.captiveportallogin", "com.google.android.networkstack",
    "com.google.android.cellbroadcastreceiver", "com.google.android.apps.wellbeing",
    "com.google.android.apps.safetyhub", "com.google.android.modulemetadata",
    "com.google.android.overlay.modules.ext.services", "com.google.android.sdksandbox",
    "com.android.wallpaperbackup", "com.android.dynsystem", "com.android.localtransport",
    "com.android.sharedstoragebackup", "com.android.backupconfirm", "com.android.externalstorage",
    "com.android.mtp", "com.android.printspooler", "com.android.stk", "com.android.traceur",
    "com.android.vpndialogs", "com.android.wallpaper.livepicker", "com.android.certinstaller",
    "com.android.carrierconfig", "com.android.cts.priv.ctsshim", "com.android.cts.ctsshim",
    "com.android.bips", "com.android.bookmarkprovider", "com.android.companiondevicemanager",
    "com.android.dreams.basic", "com.android.egg", "com.android.musicfx", "com.android.simappdialog",
    "com.android.soundpicker", "com.android.storagemanager", "com.android.smspush",
)


@runtime_checkable
class App(Protocol):
    """An installed app (the UI model of the Compose fixture implements it)."""

    package: str

    def has_activity(self, activity: str) -> bool:
        """activity is fully qualified: `dev.mobileagent.fixture.MainActivity`."""
        ...

    def start(self, activity: str, extras: dict[str, str]) -> None:
        """Bring the activity to the front with these extras (the intent's string extras)."""
        ...

    def stop(self) -> None:
        """The app's process is killed (force-stop)."""
        ...


@dataclass(frozen=True)
class StartResult:
    ok: bool
    component: str
    launch_state: str = "COLD"  # COLD, WARM, HOT
    total_time_ms: int = 0
    wait_time_ms: int = 0
    error: str = ""


Listener = Callable[[str, str], None]


def normalize_component(component: str) -> tuple[str, str] | None:
    """`pkg/.Act` or `pkg/pkg.Act` -> (pkg, fully qualified activity); None if malformed."""
    package, sep, activity = component.partition("/")
    if not sep or not package or not activity:
        return None
    if activity.startswith("."):
        activity = package + activity
    return package, activity


def short_component(package: str, activity: str) -> str:
    if activity.startswith(package + "."):
        return f"{package}/{activity[len(package):]}"
    return f"{package}/{activity}"


class ActivityManager:
    def __init__(self, processes: pm.ProcessTable, logcat: Logcat) -> None:
        self.processes = processes
        self.logcat = logcat
        self.apps: dict[str, App] = {}
        #: the image's own apps that handle intents (the browser): started like the installed ones,
        #: not listed among them
        self.system_apps: dict[str, App] = {}
        self._running: dict[str, pm.Process] = {}
        self._foreground: str | None = LAUNCHER
        self._listeners: list[Listener] = []

    # --- packages -----------------------------------------------------------------------------------

    def install(self, app: App) -> None:
        self.apps[app.package] = app

    def install_system_app(self, app: App) -> None:
        self.system_apps[app.package] = app

    def app(self, package: str) -> App | None:
        return self.apps.get(package) or self.system_apps.get(package)

    def uninstall(self, package: str) -> None:
        self.force_stop(package)
        self.apps.pop(package, None)

    def packages(self, third_party_only: bool = False) -> list[str]:
        installed = sorted(self.apps)
        if third_party_only:
            return installed
        return [*SYSTEM_PACKAGES, *[p for p in installed if p not in SYSTEM_PACKAGES]]

    # --- listeners ----------------------------------------------------------------------------------

    def add_listener(self, listener: Listener) -> None:
        self._listeners.append(listener)

    def remove_listener(self, listener: Listener) -> None:
        if listener in self._listeners:
            self._listeners.remove(listener)

    def _notify(self, event: str, component: str) -> None:
        for listener in list(self._listeners):
            try:
                listener(event, component)
            except Exception:  # noqa: BLE001 - one listener's failure must not stop a launch
                log.exception("activity listener failed on %s %s", event, component)

    # --- the activity manager ------------------------------------------------------------------------

    def foreground(self) -> str | None:
        """The resumed activity as `pkg/.Act` (the launcher when no app is in front)."""
        return self._foreground

    def is_running(self, package: str) -> bool:
        proc = self._running.get(package)
        return proc is not None and not proc.dead

    def process_of(self, package: str) -> pm.Process | None:
        """The app's running process (no kernel lock taken: the UI model charges its frames' CPU
        time here while it holds its own lock)."""
        proc = self._running.get(package)
        return proc if proc is not None and not proc.dead else None

    def pid_of(self, package: str) -> int | None:
        proc = self._running.get(package)
        return proc.pid if proc is not None and not proc.dead else None

    def start(self, component: str, extras: dict[str, str] | None = None, stop_first: bool = False,
              wait: bool = False, data: str | None = None) -> StartResult:
        """`data` is the intent's data URI, given to an app that takes it (`open_data`)."""
        started = time.monotonic()
        parsed = normalize_component(component)
        if parsed is None:
            return StartResult(False, component, error=f"Error: Bad component name: {component}")
        package, activity = parsed
        app = self.app(package)
        if app is None or not app.has_activity(activity):
            missing = f"Error type 3\nError: Activity class {{{package}/{activity}}} does not exist."
            return StartResult(False, component, error=missing)
        if stop_first:
            self.force_stop(package)
        if self.is_running(package):
            state = "HOT" if self._foreground and self._foreground.startswith(package + "/") else "WARM"
        else:
            state = "COLD"
            self._spawn_app_process(package, activity)
        open_data = getattr(app, "open_data", None)
        if data is not None and callable(open_data):
            open_data(data)
        app.start(activity, dict(extras or {}))
        short = short_component(package, activity)
        self._foreground = short
        self._notify("start", short)
        self._notify("foreground", short)
        elapsed = int((time.monotonic() - started) * 1000)
        return StartResult(True, short, state, elapsed, elapsed)

    def _spawn_app_process(self, package: str, activity: str) -> None:
        table = self.processes
        zygote = table.get(350)
        if zygote is None:
            return
        proc = table.fork(zygote, argv=[package])
        proc.uid = proc.gid = 10000 + 100 + zlib.crc32(package.encode()) % 800
        proc.signals.block(pm.ART_SIGBLK)
        self._running[package] = proc
        klass = package + activity if activity.startswith(".") else activity
        self.logcat.log("ActivityManager", f"Start proc {proc.pid}:{package}/u0a{proc.uid - 10000} "
                        "for next-top-activity "
                        f"{{{package}/{klass}}}", pid=SYSTEM_SERVER_PID)  # ProcessList.handleProcessStartedLocked

    def go_home(self) -> None:
        """The HOME key: the launcher comes to the front; the app keeps running (a later start is
        WARM)."""
        if self._foreground != LAUNCHER:
            self._foreground = LAUNCHER
            self._notify("foreground", LAUNCHER)

    def force_stop(self, package: str, caller_pid: int = 0) -> None:
        app = self.app(package)
        proc = self._running.pop(package, None)
        reason = f"from pid {caller_pid}"
        if app is not None and proc is not None:  # ActivityManagerService.forceStopPackage, ProcessList.killLocked
            self.logcat.log("ActivityManager", f"Force stopping {package} appid={proc.uid} user=0: {reason}",
                            pid=SYSTEM_SERVER_PID)
        if proc is not None and not proc.dead:
            self.logcat.log("ActivityManager", f"Killing {proc.pid}:{package}/u0a{proc.uid - 10000} (adj 0): "
                            f"stop {package} "
                            f"due to {reason}", pid=SYSTEM_SERVER_PID)
            self.processes.exit(proc, 128 + pm.SIGKILL)
        self._gone(package, app, proc)

    def crash(self, target: str) -> None:
        """`am crash PKG|PID` (ActivityManagerShellCommand.runCrash, then ActivityManagerService.
        crashApplicationWithType with "shell-induced crash"): the app's main thread throws
        RemoteServiceException$CrashedByAdbException (ActivityThread.throwRemoteServiceException),
        RuntimeInit logs it to the crash buffer and KillApplicationHandler kills the process
        (Process.killProcess: SIGKILL); its activity goes and the launcher is in front. With no
        such process the activity manager only logs a warning (AppErrors.scheduleAppCrashLocked)."""
        package = next((name for name, proc in self._running.items()
                        if not proc.dead and target in (name, str(proc.pid))), None)
        if package is None:
            pid, name = (target, "null") if target.isascii() and target.isdigit() else ("-1", target)
            self.logcat.log("ActivityManager", f"crashApplication: nothing for uid=-1 initialPid={pid} "
                            f"packageName={name} "
                            "userId=-1", "W", SYSTEM_SERVER_PID)
            return
        proc = self._running.pop(package)
        self.logcat.log_uncaught(proc.pid, package, CRASHED_BY_ADB)
        self.processes.exit(proc, 128 + pm.SIGKILL)
        self.logcat.log("ActivityManager", f"Process {package} (pid {proc.pid}) has died: fg  TOP ",
                        pid=SYSTEM_SERVER_PID)
        self._gone(package, self.app(package), proc)

    def _gone(self, package: str, app: App | None, proc: pm.Process | None) -> None:
        """The app's process ended (stopped or died): its windows go, the launcher comes back to the
        front if the app was there."""
        if app is not None:
            app.stop()
        if self._foreground and self._foreground.startswith(package + "/"):
            self._foreground = LAUNCHER
            self._notify("stop", package)
            self._notify("foreground", LAUNCHER)
        elif proc is not None:
            self._notify("stop", package)
