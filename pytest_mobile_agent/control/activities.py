"""Links and activities: open a URL and name the activity that took it, read the resumed activity,
wait for one.

`am start -W -a android.intent.action.VIEW -d URL [-p PACKAGE]` (ActivityManagerShellCommand
.runStartActivity) resolves the intent and, with -W, prints `Activity: PKG/CLASS` for the activity
that took it; when nothing handles it am prints "Error: Activity not started, unable to resolve
Intent { ... }" (a bad `url`, named so). The handler's package is stopped at the end of the test
when this start started its process (`LaunchState: COLD`, am's -W report since Android 10), so a
browser the test opened does not stay in front of the next one. The resumed activity is
`dumpsys activity activities`' mResumedActivity
(`ActivityRecord{... u0 PKG/.CLASS t12}`), else the focused window (`dumpsys window` mCurrentFocus).
"""

from __future__ import annotations

import re
import shlex
import time
from urllib.parse import urlsplit

from pytest_mobile_agent.adb import Device
from pytest_mobile_agent.arguments import check_text, check_timeout
from pytest_mobile_agent.control import shell
from pytest_mobile_agent.control.journal import Journal
from pytest_mobile_agent.errors import InvalidArgument, StateRefused, Timeout

ACTION_VIEW = "android.intent.action.VIEW"
_ACTIVITY = re.compile(r"^Activity: (\S+)$", re.MULTILINE)
_LAUNCH_STATE = re.compile(r"^LaunchState: COLD$", re.MULTILINE)
_RESUMED = re.compile(r"mResumedActivity: ActivityRecord\{\S+ u\d+ (\S+)")
_FOCUS = re.compile(r"mCurrentFocus=Window\{\S+ u\d+ (\S+?)\}")
POLL = 0.1


def check_url(url: object) -> str:
    if not isinstance(url, str) or not urlsplit(url).scheme or not url.strip() or any(c.isspace() for c in url):
        raise InvalidArgument(f"url must be an absolute URL with a scheme (https://..., myapp://...), not {url!r}")
    return check_text("url", url)


def open_url(device: Device, journal: Journal, url: str, package: str | None = None) -> str:
    """The activity (`pkg/class`) that took the URL; InvalidArgument naming `url` when none does."""
    check_url(url)
    command = f"am start -W -a {ACTION_VIEW} -d {shlex.quote(url)}" + (f" -p {shlex.quote(package)}" if package else "")
    output = device.shell(command)
    printed = (output.stdout + output.stderr).decode("utf-8", "replace").strip()
    if "unable to resolve Intent" in printed:
        where = f" in {package}" if package else ""
        raise InvalidArgument(f"url {url!r}: no activity on {device.serial}{where} handles it: {_error_line(printed)}")
    found = _ACTIVITY.search(printed)
    if output.exit_code != 0 or found is None:
        raise StateRefused(f"opening {url}: the device refused `{command}`: {printed}")
    component = qualified(found.group(1))
    if _LAUNCH_STATE.search(printed) is not None:  # COLD: this start started the handler's process
        _stop_later(device, journal, component.split("/", 1)[0])
    return component


def _error_line(printed: str) -> str:
    return next((line for line in printed.splitlines() if line.startswith("Error")), printed)


def _stop_later(device: Device, journal: Journal, package: str) -> None:
    journal.remember(f"opened {package}", lambda: shell.run(device, ["am", "force-stop", package],
                                                            what=f"stopping {package}"))


def qualified(component: str) -> str:
    """`pkg/.Class` as `pkg/pkg.Class`."""
    package, _, activity = component.partition("/")
    return f"{package}/{package}{activity}" if activity.startswith(".") else component


def resumed_activity(device: Device) -> str | None:
    """The activity in front, as `pkg/pkg.Class`; None when none is resumed."""
    found = _RESUMED.search(shell.text(device, "dumpsys activity activities"))
    if found is None:
        found = _FOCUS.search(shell.text(device, "dumpsys window"))
    return qualified(found.group(1)) if found and "/" in found.group(1) else None


def matches(component: str, wanted: str) -> bool:
    """Whether the resumed `pkg/pkg.Class` is `wanted`: a whole component (`pkg/.Class` or
    `pkg/pkg.Class`), a fully qualified class name, or a simple one (`MainActivity`)."""
    if "/" in wanted:
        return component == qualified(wanted)
    activity = component.split("/", 1)[1]
    return activity == wanted or activity.rsplit(".", 1)[-1] == wanted.lstrip(".")


def wait_for_activity(device: Device, activity: str, timeout: float, between: shell.Between | None = None) -> str:
    """The resumed activity once it is `activity`; errors.Timeout naming the one in front. `between`
    runs between the checks (the screen's watchers take their look)."""
    check_text("activity", activity)
    if not activity.strip():
        raise InvalidArgument("activity must name an activity (pkg/.Class, a class name), not ''")
    check_timeout("timeout", timeout)
    deadline = time.monotonic() + timeout
    while True:
        now = resumed_activity(device)
        if now is not None and matches(now, activity):
            return now
        if time.monotonic() >= deadline:
            raise Timeout(f"waiting for the activity {activity}", timeout, detail=f"in front: {now or 'nothing'}")
        shell.pause(between, POLL)
