"""`am`, the activity manager's shell command (ActivityManagerShellCommand): `am start [-W] [-S]
[-a ACTION] [-d URI] [-n] PKG/ACT [--es K V] [--ei K N] [--ez K B]` prints `Stopping: PKG` with
-S, then `Starting: Intent { cmp=PKG/.ACT (has extras) }`, with -W the `Status/LaunchState/
Activity/TotalTime/WaitTime/Complete` block; `am force-stop PKG`; `am crash PKG|PID` (the app
dies of a shell-induced crash, its FATAL EXCEPTION in the crash buffer); `am get-current-user`."""

from __future__ import annotations

from pytest_mobile_agent.virtual.android.framework import Framework
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
    wait = stop_first = False
    component = ""
    action = data = ""
    extras: dict[str, str] = {}
    while args:
        arg = args.pop(0)
        if arg == "-W":
            wait = True
        elif arg == "-S":
            stop_first = True
        elif arg == "-n" and args:
            component = args.pop(0)
        elif arg == "-a" and args:
            action = args.pop(0)
        elif arg == "-d" and args:
            data = args.pop(0)
        elif arg in ("--es", "--ei", "--ez", "--el", "--ef", "--eu") and len(args) >= 2:
            key, value = args.pop(0), args.pop(0)
            extras[key] = value
        elif arg == "--user" and args:
            args.pop(0)
        elif arg.startswith("-"):
            continue
        elif not component and "/" in arg:
            component = arg
    parts = []
    if action:
        parts.append(f"act={action}")
    if data:
        parts.append(f"dat={data}")
    if component:
        from pytest_mobile_agent.virtual.android.activity import (
            normalize_component,
            short_component,
        )

        parsed = normalize_component(component)
        if parsed is None:
            proc.stderr.write(f"Error: Bad component name: {component}\n")
            return 255
        parts.append(f"cmp={short_component(*parsed)}")
    if not component:
        proc.stderr.write("Error: Activity not started, unable to resolve Intent { " + " ".join(parts) + " }\n")
        return 1
    description = " ".join(parts) + (" (has extras)" if extras else "")
    if stop_first:  # runStartActivity: -S force-stops the component's package first, and says so
        proc.stdout.write(f"Stopping: {component.split('/', 1)[0]}\n")
    proc.stdout.write(f"Starting: Intent {{ {description} }}\n")
    result = framework.activity.start(component, extras, stop_first=stop_first, wait=wait)
    if not result.ok:  # runStartActivity: `out = mWaitOption ? pw : getErrPrintWriter()`, then return 1
        (proc.stdout if wait else proc.stderr).write(result.error + "\n")
        return 1
    if wait:
        proc.stdout.write(
            "Status: ok\n"
            f"LaunchState: {result.launch_state}\n"
            f"Activity: {result.component}\n"
            f"TotalTime: {result.total_time_ms}\n"
            f"WaitTime: {result.wait_time_ms}\n"
            "Complete\n"
        )
    return 0
