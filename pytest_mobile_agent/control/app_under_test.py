"""The app under test: installed once per session, started fresh for each test.

`AppInstallation` installs `--app-apk` the first time a test asks (under the automation lock),
and skips the install when the device already has that package at the same versionCode with
the same bytes (the SHA-256 of the installed base.apk, read on the device); with `--app-package`
the app must already be there. `AppUnderTest` is one test's handle: `start()` (am start -W -S,
then waiting until the app's window is in front; it returns the launch's metrics as am printed them,
control/perf/launch.py), `stop()`, `clear()`, `grant()`, `open_url()`
(a VIEW intent for the app: control/activities.py), `to_background()` (HOME) and `to_foreground()`
(am start without -S), `wait_for_activity()`, and the crash buffer for a failing test's artifacts.
`compose_fixture` is the same handle on the fixture app.
"""

from __future__ import annotations

import re
import shlex
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from pytest_mobile_agent import errors
from pytest_mobile_agent.adb import Device
from pytest_mobile_agent.apk import Apk, qualify, read_apk
from pytest_mobile_agent.control import activities
from pytest_mobile_agent.control.journal import Journal
from pytest_mobile_agent.control.perf.launch import Launch, parse_am_start
from pytest_mobile_agent.control.shell import pause
from pytest_mobile_agent.errors import hide_our_frames
from pytest_mobile_agent.mirror.steps import Steps, recorded

START_TIMEOUT = 20.0
FRONT_POLL = 0.05
"""Between two reads of the window in front (the watchers look first)."""
CRASH_COMMAND = "logcat -b crash -d"
CRASH_HEADER = "--------- beginning of "  # logcat's line before a buffer's first entry

Extra = str | int | float | bool

__tracebackhide__ = hide_our_frames  # pytest reports our failures at the test's line, not in these frames


def foreground_package(device: Device) -> str | None:
    """The package of the focused app window (`dumpsys window`'s mCurrentFocus)."""
    for line in device.shell("dumpsys window").text().splitlines():
        line = line.strip()
        if line.startswith("mCurrentFocus=") and "/" in line:
            return line.split()[-1].split("/")[0] or None
    return None


def extras_arguments(extras: Mapping[str, Extra]) -> str:
    """`am start`'s typed extras: --es for text, --ez for booleans, --ei/--el for integers, --ef."""
    parts = []
    for key, value in extras.items():
        if isinstance(value, bool):
            kind, text = "--ez", "true" if value else "false"
        elif isinstance(value, int):
            kind, text = ("--ei" if -(2**31) <= value < 2**31 else "--el"), str(value)
        elif isinstance(value, float):
            kind, text = "--ef", repr(value)
        else:
            kind, text = "--es", str(value)
        parts.append(f" {kind} {shlex.quote(key)} {shlex.quote(text)}")
    return "".join(parts)


@dataclass(frozen=True)
class Installed:
    package: str
    activity: str | None  # the launchable activity, fully qualified (None: name one at start)
    installed_now: bool = False


PACKAGE_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)+")
"""A package name as the package manager takes one: two or more Java identifiers, dot-separated
(AOSP frameworks/base, core/java/android/content/pm/parsing/FrameworkParsingPackageUtils.java,
`validateName`, Android 14)."""


@dataclass
class AppInstallation:
    """`--app-apk` / `--app-package` and `--app-activity`, checked once (`check`, no device needed)
    and resolved on the device once (`ensure`); a failure is remembered, never tried again."""

    apk_path: Path | None = None
    package: str | None = None
    activity: str | None = None
    _done: Installed | None = field(default=None, repr=False)
    _apk: Apk | None = field(default=None, repr=False)
    _data: bytes | None = field(default=None, repr=False)
    _failed: errors.MobileAgentError | None = field(default=None, repr=False)

    @property
    def named(self) -> bool:
        return self.apk_path is not None or self.package is not None

    def check(self) -> None:
        """What can be checked without a device: the APK is a readable file and an APK, its package
        is `--app-package` when both are named, and a package name is one; an error naming
        the option, the path and what is wrong."""
        if self.package is not None and not PACKAGE_NAME.fullmatch(self.package):
            raise errors.MobileAgentError(f"--app-package {self.package!r} is not a package name "
                                          "(two or more dot-separated identifiers, such as com.example.app)")
        if self.apk_path is not None:
            self._read_apk(self.apk_path)

    def _read_apk(self, path: Path) -> Apk:
        if self._apk is not None:
            return self._apk
        try:
            data = path.read_bytes()
        except IsADirectoryError:
            raise errors.MobileAgentError(f"--app-apk={path}: is a directory, not an APK file") from None
        except OSError as exc:
            raise errors.MobileAgentError(f"--app-apk={path}: {exc.strerror or exc}") from None
        try:
            apk = read_apk(data)
        except errors.InvalidApk as exc:
            raise errors.MobileAgentError(f"--app-apk={path}: {exc}",
                                          advice="Name the APK your build wrote (for Gradle: "
                                                 "app/build/outputs/apk/debug/app-debug.apk)") from None
        if self.package and self.package != apk.manifest.package:
            raise errors.MobileAgentError(f"--app-package {self.package} is not the package of --app-apk={path} "
                                          f"({apk.manifest.package})")
        self._apk, self._data = apk, data
        return apk

    def ensure(self, device: Device) -> Installed:
        if self._failed is not None:
            raise self._failed
        if self._done is None:
            try:
                self._done = self._install(device) if self.apk_path is not None else self._existing(device)
            except errors.MobileAgentError as exc:
                self._failed = exc
                raise
        return self._done

    def _install(self, device: Device) -> Installed:
        assert self.apk_path is not None
        apk = self._read_apk(self.apk_path)
        assert self._data is not None
        manifest = apk.manifest
        activity = manifest.activity(self.activity) if self.activity else manifest.launchable
        if self._already_there(device, apk):
            return Installed(manifest.package, activity)
        device.install(self._data, downgrade=True)
        return Installed(manifest.package, activity, installed_now=True)

    @staticmethod
    def _already_there(device: Device, apk: Apk) -> bool:
        from pytest_mobile_agent.adb.packages import apk_sha256

        version = device.package_version(apk.manifest.package)
        if version is None or version.code != apk.manifest.version_code:
            return False
        return apk_sha256(device, apk.manifest.package) == apk.sha256

    def _existing(self, device: Device) -> Installed:
        assert self.package is not None
        if not device.is_installed(self.package):
            raise errors.MobileAgentError(f"--app-package {self.package} is not installed on {device.serial}",
                                          advice="Install it, or name its APK with --app-apk=PATH")
        activity = qualify(self.package, self.activity) if self.activity else _resolve_launcher(device, self.package)
        return Installed(self.package, activity)


def _resolve_launcher(device: Device, package: str) -> str | None:
    """The launchable activity of an installed package (`cmd package resolve-activity --brief`)."""
    output = device.shell(["cmd", "package", "resolve-activity", "--brief", "-c", "android.intent.category.LAUNCHER",
                           package]).text().strip().splitlines()
    last = output[-1] if output else ""
    if "/" not in last:
        return None
    name, _, activity = last.partition("/")
    return name + activity if activity.startswith(".") else activity


class AppUnderTest:
    """One test's handle on an app: start it fresh, stop it, clear it, grant it permissions."""

    def __init__(self, device: Device, package: str, activity: str | None,
                 on_started: Callable[[AppUnderTest], None] | None = None, steps: Steps | None = None) -> None:
        self.device = device
        self.package = package
        self.activity = activity
        self.started = False
        self.last_launch: Launch | None = None
        """What the latest `start()` measured (am start -W's LaunchState, TotalTime, WaitTime)."""
        self._on_started = on_started
        self.steps = steps if steps is not None else Steps()
        """Where the handle's calls are recorded: the test's screen's steps, under the fixtures."""

    def __repr__(self) -> str:
        return f"AppUnderTest({self.package!r}, activity={self.activity!r})"

    def component(self, activity: str | None = None) -> str:
        name = activity or self.activity
        if not name:
            raise errors.MobileAgentError(f"{self.package} has no launchable activity",
                                          advice="Name one with --app-activity or app.start(activity=...)")
        if name.startswith("."):
            name = self.package + name
        return f"{self.package}/{name}"

    @recorded("app.start")
    def start(self, activity: str | None = None, extras: Mapping[str, Extra] | None = None, *, clear: bool = False,
              timeout: float = START_TIMEOUT) -> Launch:
        """`am start -W -S` (stopping it first, so each start is fresh), then wait until the app is
        in front. `clear` deletes its data first. Returns the launch's metrics as the activity
        manager printed them: `state` (COLD, WARM, HOT), `total_ms` (TotalTime), `wait_ms`
        (WaitTime); a start am did not time has `timed` False and `why_untimed` says why."""
        if clear:
            self.clear()
        component = self.component(activity)
        deadline = time.monotonic() + timeout
        printed = start_activity(self.device, component, extras_arguments(extras or {}), deadline)
        self.started = True
        self.last_launch = parse_am_start(printed)
        self.wait_in_front(deadline, printed)
        if self._on_started is not None:
            self._on_started(self)
        return self.last_launch

    def wait_in_front(self, deadline: float, am_printed: str = "") -> None:
        """Until the app's window is in front; between the checks the screen's watchers take their
        look (a permission prompt at launch is answered: `screen.watch_builtin("allow_permissions")`)."""
        while True:
            current = foreground_package(self.device)
            if current == self.package:
                return
            if time.monotonic() >= deadline:
                raise errors.Timeout(
                    f"waiting for {self.package} to come to the front (in front: {current or 'nothing'})",
                    detail=f"am start printed: {am_printed}" if am_printed else "",
                )
            pause(self.steps.between_polls, FRONT_POLL)

    @recorded("app.open_url")
    def open_url(self, url: str, timeout: float = START_TIMEOUT) -> str:
        """Open `url` as a VIEW intent for this app (`am start -W -a VIEW -d URL -p PACKAGE`) and wait
        until the app is in front; the activity that took it. InvalidArgument naming `url` when
        none of the app's activities handles it."""
        component = activities.open_url(self.device, Journal(), url, package=self.package)
        self.started = True
        self.wait_in_front(time.monotonic() + timeout)
        return component

    @recorded("app.to_background")
    def to_background(self, timeout: float = START_TIMEOUT) -> None:
        """The HOME key: the launcher comes to the front, the app keeps running."""
        self.device.shell("input keyevent KEYCODE_HOME")
        deadline = time.monotonic() + timeout
        while foreground_package(self.device) == self.package:
            if time.monotonic() >= deadline:
                raise errors.Timeout(f"waiting for {self.package} to leave the front", timeout)
            pause(self.steps.between_polls, FRONT_POLL)

    @recorded("app.to_foreground")
    def to_foreground(self, timeout: float = START_TIMEOUT) -> Launch:
        """Bring the running app back to the front (`am start` without -S: its task comes back);
        the launch's metrics as `start()` gives them (a WARM or HOT start)."""
        deadline = time.monotonic() + timeout
        self.last_launch = parse_am_start(start_activity(self.device, self.component(), "", deadline, stop_first=False))
        self.wait_in_front(deadline)
        return self.last_launch

    @recorded("app.wait_for_activity")
    def wait_for_activity(self, activity: str, timeout: float = START_TIMEOUT) -> str:
        """Wait until the app's `activity` (`.Class`, a class name, or `pkg/.Class`) is resumed."""
        wanted = activity if "/" in activity or not activity.startswith(".") else self.component(activity)
        return activities.wait_for_activity(self.device, wanted, timeout, self.steps.between_polls)

    @recorded("app.stop")
    def stop(self) -> None:
        """`am force-stop`: the app's processes end."""
        self.device.force_stop(self.package)

    @recorded("app.clear")
    def clear(self) -> None:
        """`pm clear`: the app stops and its data is deleted."""
        self.device.clear(self.package)

    @recorded("app.grant")
    def grant(self, *permissions: str) -> None:
        for permission in permissions:
            self.device.grant(self.package, permission)

    def crash_log(self, after: str | None = None) -> str:
        """The device's crash buffer (`logcat -b crash`): the stacks of the apps that died; with
        `after` (a line of the buffer, from `last_crash_line`), only what came after it."""
        return crash_buffer_after(self.device, after)

    def crash(self, after: str | None = None) -> str | None:
        """How this app died after that line of the crash buffer, or None when it did not."""
        return crash_of(self.package, self.crash_log(after))


def start_activity(device: Device, component: str, arguments: str, deadline: float, *, stop_first: bool = True) -> str:
    """`am start -W -S -n COMPONENT ARGUMENTS` (stopping the app first unless `stop_first` is
    False); what am printed, or an error carrying all of it. am prints its errors ("Error type 3",
    "Error: Activity class {...} does not exist.") on stdout under -W and on stderr without it
    (ActivityManagerShellCommand.runStartActivity: `out = mWaitOption ? pw : getErrPrintWriter()`),
    and a device without shell v2 mixes the two: the error keeps both, whatever the device did."""
    stop = " -S" if stop_first else ""
    output = device.shell_until(f"am start -W{stop} -n {shlex.quote(component)}{arguments}", deadline)
    printed = (output.text() + output.stderr.decode("utf-8", "replace")).strip()
    if output.exit_code != 0 or "Error" in printed:
        raise errors.MobileAgentError(f"am start {component} failed: {printed}")
    return printed


def last_crash_line(device: Device) -> str | None:
    """The crash buffer's last line now (a test's run starts after it), None when it is empty."""
    lines = [line for line in device.shell(f"{CRASH_COMMAND} -t 1").text().splitlines() if not line.startswith("-")]
    return lines[-1] if lines else None


def crash_buffer_after(device: Device, after: str | None) -> str:
    """`logcat -b crash -d`, from the line after `after` when it is still in the buffer."""
    lines = device.shell(CRASH_COMMAND).text().splitlines()
    if after is not None and after in lines:
        cut = len(lines) - 1 - lines[::-1].index(after)
        lines = [line for line in lines[cut + 1:] if not line.startswith(CRASH_HEADER)]
        lines = [f"{CRASH_HEADER}crash", *lines] if lines else []
    return "".join(line + "\n" for line in lines)


def crash_of(package: str, crash_buffer: str) -> str | None:
    """The app's death in a crash buffer, in one line: a Java crash as RuntimeInit.logUncaught logs
    it ("FATAL EXCEPTION: <thread>", "Process: <name>, PID: <pid>", the exception), or a native one
    as bionic's libc logs it ("Fatal signal 11 (SIGSEGV), ... pid N (<name>)"); None when the app is
    not in it. A process of the app is named after its package (`pkg` or `pkg:service`)."""
    lines = [line.split(": ", 1)[-1] if " AndroidRuntime: " in line or " libc " in line else line
             for line in crash_buffer.splitlines()]
    for i, text in enumerate(lines):
        name = text.removeprefix("Process: ").split(", PID: ", 1)[0] if text.startswith("Process: ") else None
        if name is not None and _is_of(package, name):
            exception = lines[i + 1] if i + 1 < len(lines) else ""
            return f"{package} crashed ({text.removeprefix('Process: ')}): {exception}".rstrip(": ")
        if "Fatal signal" in text and text.endswith(")") and _is_of(package, text.rsplit("(", 1)[-1][:-1]):
            return f"{package} crashed: {text}"
    return None


def _is_of(package: str, process_name: str) -> bool:
    return process_name == package or process_name.startswith(package + ":")
