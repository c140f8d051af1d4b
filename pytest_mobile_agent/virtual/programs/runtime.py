"""`app_process [VM options] DIR [--nice-name=N] MAIN [ARGS...]`: ART starts (in at most 50 ms, at
once when its parent has exited) with SigBlk 0x80001204, CLASSPATH from the environment, and calls
`app_process_mains[MAIN](proc, ARGS)`; a class it cannot find (no registered main, or a CLASSPATH
entry that is not a readable file) fails as ART does: `java.lang.ClassNotFoundException: Didn't
find class "MAIN" on path: DexPathList[...]` on stderr, `E AppRuntime: ERROR: could not find class
'MAIN'` in logcat, status 1. The environment stays out of /proc/<pid>/cmdline (only argv is there)."""

from __future__ import annotations

import time

from pytest_mobile_agent.virtual.android.framework import Framework
from pytest_mobile_agent.virtual.kernel import process as pm
from pytest_mobile_agent.virtual.kernel.creds import cred_of

ART_STARTUP_S = 0.05


def app_process(framework: Framework, proc: pm.Process) -> int:
    args = proc.argv[1:]
    while args and args[0].startswith("-"):
        args.pop(0)  # VM options
    if not args:
        proc.stderr.write("Usage: app_process [java-options] cmd-dir start-class-name [options]\n")
        return 10
    args.pop(0)  # the command directory
    nice_name = None
    while args and args[0].startswith("--"):
        option = args.pop(0)
        if option.startswith("--nice-name="):
            nice_name = option.split("=", 1)[1]
    if not args:
        proc.stderr.write("Error: no class name or --zygote supplied.\n")
        return 10
    main_class, main_args = args[0], args[1:]
    framework.logcat.log("AndroidRuntime", f">>>>>> START com.android.internal.os.RuntimeInit uid {proc.uid} <<<<<<",
                         "D", proc.pid)
    proc.signals.block(pm.ART_SIGBLK)
    _art_startup(framework, proc)
    if nice_name:
        proc.set_name(nice_name)
    classpath = [p for p in proc.env.get("CLASSPATH", "").split(":") if p]
    main = framework.app_process_mains.get(main_class)
    readable = all(_readable(framework, proc, path) for path in classpath)
    if main is None or not readable:
        zips = ",".join(f'zip file "{p}"' for p in classpath)
        proc.stderr.write(
            f"java.lang.ClassNotFoundException: Didn't find class \"{main_class}\" on path: "
            f"DexPathList[[{zips}],nativeLibraryDirectories=[/system/lib64, /system_ext/lib64]]\n"
            "\tat dalvik.system.BaseDexClassLoader.findClass(BaseDexClassLoader.java:259)\n"
            "\tat java.lang.ClassLoader.loadClass(ClassLoader.java:637)\n"
            "\tat java.lang.ClassLoader.loadClass(ClassLoader.java:573)\n"
        )
        framework.logcat.log("AppRuntime", f"ERROR: could not find class '{main_class}'", "E", proc.pid)
        return 1
    return main(proc, main_args)


def _art_startup(framework: Framework, proc: pm.Process) -> None:
    """ART takes a while to start (about 200 ms on the emulator): the model takes at most
    ART_STARTUP_S, and is done at once when the parent that forked it has exited, so a launch
    from a subshell's background (`( ... &)`) is reparented to init before main runs, as on
    the device."""
    parent = framework.system.processes.get(proc.ppid)
    if parent is None or parent.pid < 3000:
        return
    proc.wait(parent.cond, lambda: parent.dead, time.monotonic() + ART_STARTUP_S)


def _readable(framework: Framework, proc: pm.Process, path: str) -> bool:
    try:
        info = framework.system.fs.stat(path, cred_of(proc))
        if not info.is_file:
            return False
        framework.system.fs.read_file(path, cred_of(proc))
        return True
    except OSError:
        return False
