"""The Android tools of the virtual device.

* `getprop [NAME [DEFAULT]]`, `setprop NAME VALUE` (root, or `debug.`/`persist.` names).
* `wm density [N|reset]` ("Physical density: 420", then "Override density: N" when set),
  `wm size [WxH|reset]` ("Physical size: 1080x2400").
* `am start [-W] [-S] [-a ACTION] [-d URI] [-n] PKG/ACT [--es K V] [--ei K N] [--ez K B]` prints
  `Stopping: PKG` with -S, then `Starting: Intent { cmp=PKG/.ACT (has extras) }`, with -W the `Status/LaunchState/Activity/
  TotalTime/WaitTime/Complete` block; `am force-stop PKG`; `am crash PKG|PID` (the app dies of a
  shell-induced crash, its FATAL EXCEPTION in the crash buffer); `cmd activity|package|window ...` are
  the same as am, pm and wm.
* `pm list packages [-3] [FILTER]` (`package:NAME` lines), `pm path PKG`; installing and managing
  apps (`pm install/uninstall/clear/grant`, `dumpsys package PKG`): programs/packages.py.
* `getevent [-l] [-t] [-q] [-c N] [DEVICE]`: the display's input events, written through C stdio
  as getevent does (line buffered on a pty, 4096-byte blocks on a pipe), after the `add device`
  lines for /dev/input/event0 (qwerty2) and /dev/input/event1 (virtio_input_multi_touch_1).
* `uiautomator events` takes the UI-automation slot for as long as it runs (printing the
  accessibility events of window changes); when another client holds it, it prints the platform's
  `java.lang.IllegalStateException: UiAutomationService ...already registered!` with its stack to
  stderr (and logcat's AndroidRuntime FATAL EXCEPTION) and dies as RuntimeInit's KillApplicationHandler
  makes it, by SIGKILL (status 137). `uiautomator dump [FILE]` takes the slot for the dump.
* `su [WHO [COMMAND...]]` as AOSP's su: WHO a uid or name (`0`, `root`, `2000,2000`), the command
  (default /system/bin/sh) exec'd in the same process with the new uid, PATH reset, USER and LOGNAME
  set; "su: invalid uid/gid 'X'", "su: failed to exec X: No such file or directory", and
  "su: not allowed" for callers other than root and the shell user.
* `app_process [VM options] DIR [--nice-name=N] MAIN [ARGS...]`: ART starts (in at most 50 ms,
  at once when its parent has exited) with SigBlk 0x80001204, CLASSPATH from the environment, and calls `device.app_process_mains[MAIN](proc,
  ARGS)`; a class it cannot find (no registered main, or a CLASSPATH entry that is not a readable
  file) fails as ART does: `java.lang.ClassNotFoundException: Didn't find class "MAIN" on path:
  DexPathList[...]` on stderr, `E AppRuntime: ERROR: could not find class 'MAIN'` in logcat,
  status 1. The environment stays out of /proc/<pid>/cmdline (only argv is there).
* `screencap [-p] [FILE]`: a PNG of display.render() (raw RGBA with the 16-byte header without
  -p and a file name that is not .png).
* `logcat -d` prints the buffer device.log() writes to, `logcat -c` clears it, plain `logcat`
  follows it until killed; `-b crash` gives AndroidRuntime's FATAL EXCEPTION lines (nothing at all
  when no app died, as an empty crash buffer prints).
* `input tap X Y`, `input swipe X1 Y1 X2 Y2 [MS]`, `input keyevent K`, `input text T` drive the
  display (touches are injected as InputManager.injectInputEvent injects them: they reach the UI
  model and no input device, so getevent shows none of them; keys and text go to the content
  provider's `key(code)` / `text(s)` when it has them; HOME, 3, brings the launcher to the front).
* `dumpsys window` (mCurrentFocus, mFocusedApp), `dumpsys activity activities` (mResumedActivity), `settings get|put|list NAMESPACE [KEY [VALUE]]`.
"""

from __future__ import annotations

import io
import struct
import time
from typing import TYPE_CHECKING

from pytest_mobile_agent.virtual.android.automation import already_registered_message
from pytest_mobile_agent.virtual.android.display import (
    KEYBOARD_DEVICE,
    KEYBOARD_NAME,
    TOUCH_DEVICE,
    TOUCH_NAME,
)
from pytest_mobile_agent.virtual.kernel import process as pm
from pytest_mobile_agent.virtual.kernel.binaries import SEARCH_PATH
from pytest_mobile_agent.virtual.kernel.creds import cred_of
from pytest_mobile_agent.virtual.kernel.numbers import is_decimal
from pytest_mobile_agent.virtual.programs.packages import dumpsys_package, pm_command
from pytest_mobile_agent.virtual.programs.services import SERVICE_DUMPS

if TYPE_CHECKING:
    from pytest_mobile_agent.virtual.device import VirtualDevice

ART_STARTUP_S = 0.05

UIAUTOMATOR_STACK = (
    "\tat android.os.Parcel.createExceptionOrNull(Parcel.java:3348)\n"
    "\tat android.os.Parcel.createException(Parcel.java:3324)\n"
    "\tat android.os.Parcel.readException(Parcel.java:3307)\n"
    "\tat android.os.Parcel.readException(Parcel.java:3249)\n"
    "\tat android.view.accessibility.IAccessibilityManager$Stub$Proxy.registerUiTestAutomationService(IAccessibilityManager.java:1154)\n"
    "\tat android.app.UiAutomationConnection.registerUiTestAutomationServiceLocked(UiAutomationConnection.java:640)\n"
    "\tat android.app.UiAutomationConnection.connect(UiAutomationConnection.java:136)\n"
    "\tat android.app.UiAutomation.connectWithTimeout(UiAutomation.java:386)\n"
    "\tat com.android.uiautomator.core.UiAutomationShellWrapper.connect(UiAutomationShellWrapper.java:36)\n"
    "\tat com.android.commands.uiautomator.{command}.run({command}.java:{line})\n"
    "\tat com.android.commands.uiautomator.Launcher.main(Launcher.java:83)\n"
    "\tat com.android.internal.os.RuntimeInit.nativeFinishInit(Native Method)\n"
    "\tat com.android.internal.os.RuntimeInit.main(RuntimeInit.java:371)\n"
)


def install(device: VirtualDevice) -> None:
    reg = device.programs.register
    settings = device.framework.settings

    def getprop(proc: pm.Process) -> int:
        args = proc.argv[1:]
        if not args:
            proc.stdout.write("".join(f"[{k}]: [{v}]\n" for k, v in sorted(device.properties.items())))
            return 0
        default = args[1] if len(args) > 1 else ""
        proc.stdout.write(device.getprop(args[0], default) + "\n")
        return 0

    def setprop(proc: pm.Process) -> int:
        if len(proc.argv) != 3:
            proc.stderr.write("usage: setprop NAME VALUE\n\nSets an Android system property.\n")
            return 1
        name, value = proc.argv[1], proc.argv[2]
        if proc.uid != 0 and not name.startswith(("debug.", "persist.debug.", "log.tag")):
            proc.stderr.write(f"setprop: failed to set property '{name}' to '{value}'.\nSee dmesg for error reason.\n")
            return 1
        if name.startswith("ro.") and name in device.properties:
            proc.stderr.write(f"setprop: failed to set property '{name}' to '{value}'.\nSee dmesg for error reason.\n")
            return 1
        device.setprop(name, value)
        return 0

    # --- wm ---------------------------------------------------------------------------------------

    def wm(proc: pm.Process, args: list[str] | None = None) -> int:
        args = proc.argv[1:] if args is None else args
        display = device.display
        if not args:
            proc.stdout.write("Window manager (window) commands:\n  size [reset|WxH|WdpxHdp] [-d DISPLAY_ID]\n  density [reset|DENSITY] [-d DISPLAY_ID]\n")
            return 0
        command, rest = args[0], [a for a in args[1:] if a not in ("-d", "0")]
        if command == "density":
            if not rest:
                out = f"Physical density: {display.physical_density}\n"
                if display.override_density is not None:
                    out += f"Override density: {display.override_density}\n"
                proc.stdout.write(out)
                return 0
            if rest[0] == "reset":
                display.override_density = None
                display.changed()
                return 0
            if not is_decimal(rest[0]) or int(rest[0]) <= 0:
                proc.stderr.write(f"Error: bad number {rest[0]}\n")
                return 255
            value = int(rest[0])
            display.override_density = None if value == display.physical_density else value
            display.changed()
            return 0
        if command == "size":
            if not rest:
                out = f"Physical size: {display.physical_width}x{display.physical_height}\n"
                if display.override_size is not None:
                    out += f"Override size: {display.override_size[0]}x{display.override_size[1]}\n"
                proc.stdout.write(out)
                return 0
            if rest[0] == "reset":
                display.override_size = None
                display.changed()
                return 0
            width, sep, height = rest[0].partition("x")
            if not (sep and is_decimal(width) and is_decimal(height)):
                proc.stderr.write(f"Error: bad size {rest[0]}\n")
                return 255
            size = (int(width), int(height))
            display.override_size = None if size == (display.physical_width, display.physical_height) else size
            display.changed()
            return 0
        proc.stderr.write(f"Unknown command: {command}\n")
        return 255

    # --- am ---------------------------------------------------------------------------------------

    def am(proc: pm.Process, args: list[str] | None = None) -> int:
        args = list(proc.argv[1:] if args is None else args)
        if not args:
            proc.stdout.write("Activity manager (activity) commands:\n  start [-W] [-S] -n COMPONENT\n  force-stop PACKAGE\n")
            return 0
        command = args.pop(0)
        if command in ("start", "start-activity"):
            return _am_start(proc, args)
        if command == "force-stop":
            packages = [a for a in args if not a.startswith("-")]
            if not packages:
                proc.stderr.write("Error: no package specified\n")
                return 255
            for package in packages:
                device.activity.force_stop(package, proc.pid)
            return 0
        if command == "crash":  # ActivityManagerShellCommand.runCrash: PKG or PID, silent on success
            targets = [a for a in args if not a.startswith("-")]
            if not targets:
                # ShellCommand.getNextArgRequired throws; ShellCommand.exec prints it and returns -1
                proc.stderr.write("\nException occurred while executing 'crash':\n"
                                  "java.lang.IllegalArgumentException: Argument expected after \"crash\"\n")
                return 255
            device.activity.crash(targets[-1])
            return 0
        if command == "get-current-user":
            proc.stdout.write("0\n")
            return 0
        proc.stderr.write(f"Unknown command: {command}\n")
        return 255

    def _am_start(proc: pm.Process, args: list[str]) -> int:
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
        result = device.activity.start(component, extras, stop_first=stop_first, wait=wait)
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

    # --- pm ---------------------------------------------------------------------------------------

    def pm_(proc: pm.Process, args: list[str] | None = None) -> int:
        args = list(proc.argv[1:] if args is None else args)
        answered = pm_command(device, proc, args)  # install, uninstall, clear, grant, list, path, dump
        if answered is not None:
            return answered
        if len(args) >= 2 and args[0] == "list" and args[1] == "packages":
            rest = args[2:]
            third = "-3" in rest
            filters = [a for a in rest if not a.startswith("-")]
            names = device.activity.packages(third_party_only=third)
            if filters:
                names = [n for n in names if filters[0] in n]
            proc.stdout.write("".join(f"package:{n}\n" for n in names))
            return 0
        if len(args) == 2 and args[0] == "path":
            package = args[1]
            if package not in device.activity.packages():
                return 1
            where = "/data/app/~~vB0e1Xf3nHk2Q==/" + package + "-1/base.apk" if package in device.activity.apps else f"/system/app/{package}/{package}.apk"
            proc.stdout.write(f"package:{where}\n")
            return 0
        if args and args[0] == "list" and len(args) > 1 and args[1] == "instrumentation":
            return 0
        proc.stderr.write(f"Unknown command: {' '.join(args) or '(none)'}\n" if args else "Package manager (package) commands:\n")
        return 255 if args else 0

    def cmd(proc: pm.Process) -> int:
        args = proc.argv[1:]
        if not args:
            proc.stderr.write("cmd: No service specified; use -l to list all running services. Use -w to start and wait for a service.\n")
            return 20
        service, rest = args[0], args[1:]
        if service == "activity":
            return am(proc, rest)
        if service == "package":
            return pm_(proc, rest)
        if service == "window":
            return wm(proc, rest)
        proc.stderr.write(f"cmd: Can't find service: {service}\n")
        return 20

    # --- getevent -----------------------------------------------------------------------------------

    def getevent(proc: pm.Process) -> int:
        args = proc.argv[1:]
        labels = "-l" in args
        stamps = "-t" in args
        quiet = "-q" in args
        count = 0
        devices = [a for a in args if a.startswith("/dev/")]
        for i, arg in enumerate(args):
            if arg == "-c" and i + 1 < len(args) and is_decimal(args[i + 1]):
                count = int(args[i + 1])
        if devices and devices[0] not in (TOUCH_DEVICE, KEYBOARD_DEVICE):
            proc.stderr.write(f"could not open {devices[0]}, No such file or directory\n")
            return 1
        out = proc.c_stdout()
        cond = proc.kernel.condition()
        pending: list[tuple[str, str, str, int | str]] = []

        def listener(event: tuple[str, str, str, int | str]) -> None:
            with proc.kernel.lock:
                pending.append(event)
                cond.notify_all()

        device.display.add_event_listener(listener)
        proc.at_death(lambda: device.display.remove_event_listener(listener))
        if not quiet and not devices:
            out.write(f"add device 1: {KEYBOARD_DEVICE}\n  name:     \"{KEYBOARD_NAME}\"\n")
            out.write(f"add device 2: {TOUCH_DEVICE}\n  name:     \"{TOUCH_NAME}\"\n")
        seen = 0
        started = time.monotonic()
        while True:
            with proc.kernel.lock:
                proc.wait(cond, lambda: bool(pending), None)
                batch = list(pending)
                pending.clear()
            for dev, kind, code, value in batch:
                if devices and dev != devices[0]:
                    continue
                out.write(_event_line(dev, kind, code, value, labels, stamps, started, prefix=not devices))
                seen += 1
                if count and seen >= count:
                    device.display.remove_event_listener(listener)
                    return 0

    # --- uiautomator --------------------------------------------------------------------------------

    def uiautomator(proc: pm.Process) -> int:
        args = proc.argv[1:]
        if not args or args[0] not in ("events", "dump"):
            proc.stdout.write("Usage: uiautomator <subcommand> [options]\n\nAvailable subcommands:\n\nhelp: displays help message\n\nruntest: executes UI automation tests\n\ndump: creates an XML dump of current UI hierarchy\n\nevents: prints out accessibility events until terminated\n")
            return 0 if not args or args[0] == "help" else 1
        proc.set_name("uiautomator")
        proc.signals.block(pm.ART_SIGBLK)
        command = "EventsCommand" if args[0] == "events" else "DumpCommand"
        if not device.automation.acquire(proc.pid, "uiautomator"):
            message = already_registered_message()
            stack = UIAUTOMATOR_STACK.format(command=command, line=45 if command == "EventsCommand" else 78)
            proc.stderr.write(message + "\n" + stack)
            device.logcat.log_uncaught(proc.pid, None, message + "\n" + stack)  # a tool: no process name
            device.processes.terminate(proc, pm.SIGKILL)
            raise pm.Terminated(pm.SIGKILL)
        if args[0] == "dump":
            return _dump(proc, args[1:])
        cond = proc.kernel.condition()
        events: list[str] = []

        def on_activity(event: str, component: str) -> None:
            if event != "foreground":
                return
            package = component.split("/", 1)[0]
            stamp = int((time.monotonic() - device.boot_monotonic) * 1000)
            with proc.kernel.lock:
                events.append(
                    f"EventType: TYPE_WINDOW_STATE_CHANGED; EventTime: {stamp}; PackageName: {package}; "
                    f"MovementGranularity: 0; Action: 0; ContentChangeTypes: []; WindowChangeTypes: [] [\n"
                    f" ClassName: {component.split('/', 1)[-1]}; Text: []; ContentDescription: null; ItemCount: -1; "
                    f"CurrentItemIndex: -1; Enabled: true; Password: false; Checked: false; FullScreen: true; "
                    f"Scrollable: false; BeforeText: null; FromIndex: -1; ToIndex: -1; ScrollX: 0; ScrollY: 0; "
                    f"MaxScrollX: 0; MaxScrollY: 0; ScrollDeltaX: -1; ScrollDeltaY: -1; AddedCount: -1; "
                    f"RemovedCount: -1; ParcelableData: null; DisplayId: 0 ]; recordCount: 0\n"
                )
                cond.notify_all()

        device.activity.add_listener(on_activity)
        proc.at_death(lambda: device.activity.remove_listener(on_activity))
        try:
            while True:
                with proc.kernel.lock:
                    proc.wait(cond, lambda: bool(events), None)
                    batch = list(events)
                    events.clear()
                for line in batch:
                    proc.stdout.write(line)
        finally:
            device.activity.remove_listener(on_activity)
            device.automation.release(proc.pid)

    def _dump(proc: pm.Process, args: list[str]) -> int:
        target = next((a for a in args if not a.startswith("-")), "/sdcard/window_dump.xml")
        try:
            content = device.display.content
            xml = content.dump_xml() if content is not None and hasattr(content, "dump_xml") else (
                "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">"
                f"<node index=\"0\" text=\"\" resource-id=\"\" class=\"android.widget.FrameLayout\" "
                f"package=\"{(device.activity.foreground() or '').split('/', 1)[0]}\" bounds=\"[0,0][{device.display.width},{device.display.height}]\" />"
                "</hierarchy>"
            )
            device.fs.write_file(device.fs.normalize(target, proc.cwd), xml.encode(), cred_of(proc))
        except OSError as exc:
            proc.stderr.write(f"ERROR: could not write {target}: {exc.strerror}\n")
            return 1
        finally:
            device.automation.release(proc.pid)
        proc.stdout.write(f"UI hierchary dumped to: {target}\n")  # DumpCommand's own spelling, on stdout
        return 0

    # --- su, app_process --------------------------------------------------------------------------

    def su(proc: pm.Process) -> int:
        """AOSP's su: `su [WHO [COMMAND...]]`, WHO a uid or name (with `,gid`), root by default;
        the command is exec'd in the same process with PATH reset and USER/LOGNAME set."""
        if proc.uid not in (0, 2000):
            proc.stderr.write("su: not allowed\n")
            return 1
        args = proc.argv[1:]
        if args and args[0] in ("-h", "--help"):
            proc.stderr.write("usage: su [WHO [COMMAND...]]\n\nSwitch to WHO (default 'root') and run the given COMMAND (default sh).\n\n"
                              "WHO is a comma-separated list of user, group, and supplementary groups\nin that order.\n\n")
            return 0
        uid = gid = 0
        if args:
            who = args.pop(0).split(",")
            ids: list[int] = []
            for token in who:
                named = {"root": 0, "shell": 2000, "system": 1000}
                if token in named:
                    ids.append(named[token])
                elif is_decimal(token):
                    ids.append(int(token))
                else:
                    proc.stderr.write(f"su: invalid uid/gid '{token}'\n")
                    return 1
            uid = ids[0]
            gid = ids[1] if len(ids) > 1 else uid
        if not args:
            args = ["/system/bin/sh"]
        program = device.programs.get(args[0].rsplit("/", 1)[-1])
        if program is None:
            proc.stderr.write(f"su: failed to exec {args[0]}: No such file or directory\n")
            return 1
        env = dict(proc.env)
        env["PATH"] = ":".join(SEARCH_PATH)
        env.pop("IFS", None)
        user = {0: "root", 2000: "shell", 1000: "system"}.get(uid)
        if user is not None:
            env["USER"] = env["LOGNAME"] = user
        proc.uid, proc.gid = uid, gid
        proc.exec_image(args, env)
        return program(proc)

    def app_process(proc: pm.Process) -> int:
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
        device.log("AndroidRuntime", f">>>>>> START com.android.internal.os.RuntimeInit uid {proc.uid} <<<<<<", "D", proc.pid)
        proc.signals.block(pm.ART_SIGBLK)
        _art_startup(proc)
        if nice_name:
            proc.set_name(nice_name)
        classpath = [p for p in proc.env.get("CLASSPATH", "").split(":") if p]
        main = device.app_process_mains.get(main_class)
        readable = all(_readable(proc, path) for path in classpath)
        if main is None or not readable:
            zips = ",".join(f'zip file "{p}"' for p in classpath)
            proc.stderr.write(
                f"java.lang.ClassNotFoundException: Didn't find class \"{main_class}\" on path: "
                f"DexPathList[[{zips}],nativeLibraryDirectories=[/system/lib64, /system_ext/lib64]]\n"
                "\tat dalvik.system.BaseDexClassLoader.findClass(BaseDexClassLoader.java:259)\n"
                "\tat java.lang.ClassLoader.loadClass(ClassLoader.java:637)\n"
                "\tat java.lang.ClassLoader.loadClass(ClassLoader.java:573)\n"
            )
            device.log("AppRuntime", f"ERROR: could not find class '{main_class}'", "E", proc.pid)
            return 1
        return main(proc, main_args)

    def _art_startup(proc: pm.Process) -> None:
        """ART takes a while to start (about 200 ms on the emulator): the model takes at most
        ART_STARTUP_S, and is done at once when the parent that forked it has exited, so a launch
        from a subshell's background (`( ... &)`) is reparented to init before main runs, as on
        the device."""
        parent = device.processes.get(proc.ppid)
        if parent is None or parent.pid < 3000:
            return
        proc.wait(parent.cond, lambda: parent.dead, time.monotonic() + ART_STARTUP_S)

    def _readable(proc: pm.Process, path: str) -> bool:
        try:
            info = device.fs.stat(path, cred_of(proc))
            if not info.is_file:
                return False
            device.fs.read_file(path, cred_of(proc))
            return True
        except OSError:
            return False

    # --- screencap, logcat, input, dumpsys, settings ---------------------------------------------

    def screencap(proc: pm.Process) -> int:
        args = proc.argv[1:]
        png = "-p" in args
        files = [a for a in args if not a.startswith("-")]
        image = device.display.render()
        if files and files[0].endswith(".png"):
            png = True
        if png:
            buffer = io.BytesIO()
            image.save(buffer, format="PNG", compress_level=1)
            data = buffer.getvalue()
        else:
            rgba = image.convert("RGBA")
            data = struct.pack("<IIII", rgba.width, rgba.height, 1, 0) + rgba.tobytes()
        if files:
            try:
                device.fs.write_file(device.fs.normalize(files[0], proc.cwd), data, cred_of(proc))
            except OSError as exc:
                proc.stderr.write(f"Error opening file: {files[0]} ({exc.strerror})\n")
                return 1
            return 0
        proc.stdout.write(data)
        return 0

    def logcat(proc: pm.Process) -> int:
        args = proc.argv[1:]
        if "-c" in args:
            device.logcat.clear()
            return 0
        lines, seen = device.logcat.since(0)
        buffer = args[args.index("-b") + 1] if "-b" in args[:-1] else "main"
        if buffer == "crash":  # RuntimeInit logs an app's death (AndroidRuntime's FATAL EXCEPTION) to the crash buffer
            lines = device.logcat.crash_lines()
        if "-t" in args[:-1]:  # -t N: the last N lines; -t 'MM-DD HH:MM:SS.mmm': the lines since then
            since = args[args.index("-t") + 1]
            lines = lines[-int(since):] if is_decimal(since) else [line for line in lines if line[:18] >= since]
            args = [*args, "-d"]  # -t implies -d
        proc.stdout.write((f"--------- beginning of {buffer}\n" if lines or buffer == "main" else "")
                          + "".join(line + "\n" for line in lines))
        if "-d" in args:
            return 0
        while True:
            with proc.kernel.lock:
                proc.wait(device.logcat.cond, lambda seen=seen: device.logcat.count != seen, None)  # type: ignore[misc]
            lines, seen = device.logcat.since(seen)
            proc.stdout.write("".join(line + "\n" for line in lines))

    def input_(proc: pm.Process) -> int:
        args = [a for a in proc.argv[1:] if a not in ("touchscreen", "-d", "0")]
        display = device.display
        try:
            if len(args) == 3 and args[0] == "tap":
                x, y = int(float(args[1])), int(float(args[2]))
                display.inject(x, y, True)
                display.inject(x, y, False)
                return 0
            if len(args) in (5, 6) and args[0] == "swipe":
                x1, y1, x2, y2 = (int(float(a)) for a in args[1:5])
                duration = int(args[5]) / 1000 if len(args) == 6 else 0.3
                steps = max(1, int(duration / 0.008))
                display.inject(x1, y1, True)
                for step in range(1, steps + 1):
                    proc.sleep(duration / steps)
                    display.inject(x1 + (x2 - x1) * step // steps, y1 + (y2 - y1) * step // steps, True)
                display.inject(x2, y2, False)
                return 0
            if len(args) == 2 and args[0] == "keyevent" and args[1] in ("3", "KEYCODE_HOME") \
                    and getattr(display.content, "key", None) is None:
                device.activity.go_home()  # no UI model: the activity manager alone (the model tells it itself)
                return 0
            if len(args) == 2 and args[0] in ("keyevent", "text"):
                content = display.content
                handler = getattr(content, "key" if args[0] == "keyevent" else "text", None)
                if handler is not None:
                    handler(args[1])
                return 0
        except ValueError:
            pass
        proc.stderr.write("Usage: input [<source>] [-d DISPLAY_ID] <command> [<arg>...]\n\n"
                          "The commands and default sources are:\n      text <string> (Default: keyboard)\n"
                          "      keyevent [--longpress|--doubletap] <key code number or name> ... (Default: keyboard)\n"
                          "      tap <x> <y> (Default: touchscreen)\n"
                          "      swipe <x1> <y1> <x2> <y2> [duration(ms)] (Default: touchscreen)\n")
        return 1

    def dumpsys(proc: pm.Process) -> int:
        args = proc.argv[1:]
        if args and args[0] == "package":
            return dumpsys_package(device, proc, args[1:])
        if args and args[0] in SERVICE_DUMPS:
            proc.stdout.write(SERVICE_DUMPS[args[0]](device))
            return 0
        if args and args[0] == "window":
            focus = device.activity.foreground() or ""
            package, _, activity = focus.partition("/")
            full = package + activity if activity.startswith(".") else activity
            proc.stdout.write(
                "WINDOW MANAGER WINDOWS (dumpsys window windows)\n"
                f"  mCurrentFocus=Window{{1a2b3c4 u0 {package}/{full}}}\n"
                f"  mFocusedApp=ActivityRecord{{5d6e7f8 u0 {package}/{activity} t12}}\n"
            )
            return 0
        if args and args[0] == "activity" and "activities" in args[1:]:
            focus = device.activity.foreground() or ""
            package = focus.split("/", 1)[0]
            proc.stdout.write(
                "ACTIVITY MANAGER ACTIVITIES (dumpsys activity activities)\n"
                f"  ResumedActivity: ActivityRecord{{5d6e7f8 u0 {focus} t12}}\n"
                f"  mResumedActivity: ActivityRecord{{5d6e7f8 u0 {focus} t12}}\n"
                f"  topResumedActivity=ActivityRecord{{5d6e7f8 u0 {focus} t12}}\n"
                f"  mFocusedApp=ActivityRecord{{5d6e7f8 u0 {focus} t12}} package={package}\n"
            )
            return 0
        if not args:
            proc.stdout.write("Currently running services:\n  activity\n  display\n  package\n  power\n  window\n")
            return 0
        proc.stderr.write(f"Can't find service: {args[0]}\n")
        return 0

    def settings_(proc: pm.Process) -> int:
        args = [a for a in proc.argv[1:] if a not in ("--user", "0", "current")]
        if len(args) >= 2 and args[1] in settings:
            verb, namespace = args[0], settings[args[1]]
            if verb == "get" and len(args) == 3:
                proc.stdout.write(namespace.get(args[2], "null") + "\n")
                return 0
            if verb == "put" and len(args) >= 4:
                namespace[args[2]] = args[3]
                return 0
            if verb == "delete" and len(args) == 3:
                namespace.pop(args[2], None)
                return 0
            if verb == "list":
                proc.stdout.write("".join(f"{k}={v}\n" for k, v in sorted(namespace.items())))
                return 0
        proc.stderr.write("usage:  settings [--user <USER_ID> | current] get namespace key\n")
        return 1

    for name, fn in {
        "getprop": getprop, "setprop": setprop, "wm": wm, "am": am, "pm": pm_, "cmd": cmd,
        "getevent": getevent, "uiautomator": uiautomator, "su": su, "app_process": app_process,
        "app_process64": app_process, "screencap": screencap, "logcat": logcat, "input": input_,
        "dumpsys": dumpsys, "settings": settings_,
    }.items():
        reg(name, fn)  # type: ignore[arg-type]


def _event_line(dev: str, kind: str, code: str, value: int | str, labels: bool, stamps: bool,
                started: float, *, prefix: bool) -> str:
    head = f"{dev}: " if prefix else ""
    if stamps:
        elapsed = time.monotonic() - started
        head = f"[{elapsed:14.6f}] " + head
    if labels:
        value_text = f"{value:<20}" if isinstance(value, str) else f"{value & 0xFFFFFFFF:08x}"
        return f"{head}{kind:<12} {code:<20} {value_text}\n"
    types = {"EV_SYN": 0, "EV_KEY": 1, "EV_ABS": 3}
    codes = {"SYN_REPORT": 0, "BTN_TOUCH": 0x14A, "ABS_MT_SLOT": 0x2F, "ABS_MT_TRACKING_ID": 0x39,
             "ABS_MT_POSITION_X": 0x35, "ABS_MT_POSITION_Y": 0x36, "ABS_MT_PRESSURE": 0x3A}
    number = {"DOWN": 1, "UP": 0}.get(value, 0) if isinstance(value, str) else value
    return f"{head}{types.get(kind, 0):04x} {codes.get(code, 0):04x} {number & 0xFFFFFFFF:08x}\n"

