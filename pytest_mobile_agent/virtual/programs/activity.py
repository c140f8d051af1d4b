"""`am`, the activity manager's shell command (ActivityManagerShellCommand): `am start [-W] [-S]
[-a ACTION] [-d URI] [-p PKG] [-n] PKG/ACT [--es K V] [--ei K N] [--ez K B]` prints `Stopping: PKG`
with -S, then `Starting: Intent { cmp=PKG/.ACT (has extras) }`, with -W the `Status/LaunchState/
Activity/TotalTime/WaitTime/Complete` block; an intent without a component is resolved
(android/intents.py: VIEW of a URL opens the app whose intent filter takes it, an https App Link
the verified app's, any other http or https URL the browser), and one nothing handles
fails with "Error: Activity not started, unable to resolve Intent { ... }"; `am force-stop PKG`;
`am crash PKG|PID` (the app
dies of a shell-induced crash, its FATAL EXCEPTION in the crash buffer); `am get-current-user`."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from pytest_mobile_agent.virtual.android.activity import normalize_component, short_component
from pytest_mobile_agent.virtual.android.framework import Framework
from pytest_mobile_agent.virtual.android.intents import (
    ACTION_VIEW,
    FLAG_ACTIVITY_NEW_TASK,
    resolve_view,
    safe_data,
)
from pytest_mobile_agent.virtual.kernel import process as pm


def am(framework: Framework, proc: pm.Process, args: list[str] | None = None) -> int:
    args = list(proc.argv[1:] if args is None else args)
    if not args:
        proc.stdout.write("Activity manager (activity) commands:\n  start [-W] [-S] -n COMPONENT\n"
                          "  force-stop PACKAGE\n")
        return 0
    command = args.pop(0)
    if command in ("start", "start-activity"):
        return _am_start(framework, proc, args)
    if command == "force-stop":
        packages = [a for a in args if not a.startswith("-")]
        if not packages:
            proc.stderr.write("Error: no package specified\n")
            return 255
        for package in packages:
            framework.activity.force_stop(package, proc.pid)
        return 0
    if command == "crash":  # ActivityManagerShellCommand.runCrash: PKG or PID, silent on success
        targets = [a for a in args if not a.startswith("-")]
        if not targets:
            # ShellCommand.getNextArgRequired throws; ShellCommand.exec prints it and returns -1
            proc.stderr.write("\nException occurred while executing 'crash':\n"
                              "java.lang.IllegalArgumentException: Argument expected after \"crash\"\n")
            return 255
        framework.activity.crash(targets[-1])
        return 0
    if command == "get-current-user":
        proc.stdout.write("0\n")
        return 0
    proc.stderr.write(f"Unknown command: {command}\n")
    return 255


def _am_start(framework: Framework, proc: pm.Process, args: list[str]) -> int:
    intent = _parse_start(args)
    if intent is None:
        return 255
    wait, stop_first, component, extras = intent.wait, intent.stop_first, intent.component, intent.extras
    if component and normalize_component(component) is None:
        proc.stderr.write(f"Error: Bad component name: {component}\n")
        return 255
    description = intent.describe() + (" (has extras)" if extras else "")
    if stop_first and component:  # runStartActivity: -S force-stops the component's package first, and says so
        proc.stdout.write(f"Stopping: {component.split('/', 1)[0]}\n")
    proc.stdout.write(f"Starting: Intent {{ {description} }}\n")
    if not component and intent.action == ACTION_VIEW and intent.data:
        component = resolve_view(intent.data, intent.package, framework.packages.link_handlers()) or ""
    if not component:  # ActivityManagerShellCommand.runStartActivity: PackageManager resolved nothing
        unresolved = intent.describe(resolving=True)
        proc.stderr.write(f"Error: Activity not started, unable to resolve Intent {{ {unresolved} }}\n")
        return 1
    called = time.monotonic()  # runStartActivity's startTime: SystemClock.uptimeMillis() around the call
    result = framework.activity.start(component, extras, stop_first=stop_first, wait=wait, data=intent.data or None)
    wait_ms = max(result.total_time_ms, int((time.monotonic() - called) * 1000))
    if not result.ok:  # runStartActivity: `out = mWaitOption ? pw : getErrPrintWriter()`, then return 1
        (proc.stdout if wait else proc.stderr).write(result.error + "\n")
        return 1
    if wait:
        proc.stdout.write(
            "Status: ok\n"
            f"LaunchState: {result.launch_state}\n"
            f"Activity: {result.component}\n"
            f"TotalTime: {result.total_time_ms}\n"
            f"WaitTime: {wait_ms}\n"  # the shell command's own time around the call (endTime - startTime)
            "Complete\n"
        )
    return 0


@dataclass
class StartIntent:
    """What `am start` read of its arguments (Intent.parseCommandArgs and runStartActivity's options)."""

    wait: bool = False
    stop_first: bool = False
    component: str = ""
    action: str = ""
    data: str = ""
    package: str | None = None
    extras: dict[str, str] = field(default_factory=dict)

    def describe(self, *, resolving: bool = False) -> str:
        """Intent.toShortString: the action, the data (Uri.toSafeString), the flags am added (shown
        once it asked the package manager), the package, the component."""
        parts = []
        if self.action:
            parts.append(f"act={self.action}")
        if self.data:
            parts.append(f"dat={safe_data(self.data)}")
        if resolving:
            parts.append(f"flg=0x{FLAG_ACTIVITY_NEW_TASK:x}")
        if self.package:
            parts.append(f"pkg={self.package}")
        if self.component:
            parsed = normalize_component(self.component)
            parts.append(f"cmp={short_component(*parsed) if parsed else self.component}")
        return " ".join(parts)


def _parse_start(args: list[str]) -> StartIntent | None:
    intent = StartIntent()
    while args:
        arg = args.pop(0)
        if arg == "-W":
            intent.wait = True
        elif arg == "-S":
            intent.stop_first = True
        elif arg == "-n" and args:
            intent.component = args.pop(0)
        elif arg == "-a" and args:
            intent.action = args.pop(0)
        elif arg == "-d" and args:
            intent.data = args.pop(0)
        elif arg == "-p" and args:
            intent.package = args.pop(0)
        elif arg in ("--es", "--ei", "--ez", "--el", "--ef", "--eu") and len(args) >= 2:
            key, value = args.pop(0), args.pop(0)
            intent.extras[key] = value
        elif arg == "--user" and args:
            args.pop(0)
        elif arg.startswith("-"):
            continue
        elif not intent.component and "/" in arg:
            intent.component = arg
        elif not intent.component and ":" not in arg:  # a bare package name restricts the intent
            intent.package = arg
    return intent
