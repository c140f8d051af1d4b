"""`uiautomator events` takes the UI-automation slot for as long as it runs (printing the
accessibility events of window changes); when another client holds it, it prints the platform's
`java.lang.IllegalStateException: UiAutomationService ...already registered!` with its stack to
stderr (and logcat's AndroidRuntime FATAL EXCEPTION) and dies as RuntimeInit's
KillApplicationHandler makes it, by SIGKILL (status 137). `uiautomator dump [FILE]` takes the slot
for the dump."""

from __future__ import annotations

import time

from pytest_mobile_agent.virtual.android.automation import already_registered_message
from pytest_mobile_agent.virtual.android.framework import Framework
from pytest_mobile_agent.virtual.kernel import process as pm
from pytest_mobile_agent.virtual.kernel.creds import cred_of

UIAUTOMATOR_STACK = (
    "\tat android.os.Parcel.createExceptionOrNull(Parcel.java:3348)\n"
    "\tat android.os.Parcel.createException(Parcel.java:3324)\n"
    "\tat android.os.Parcel.readException(Parcel.java:3307)\n"
    "\tat android.os.Parcel.readException(Parcel.java:3249)\n"
    "\tat android.view.accessibility.IAccessibilityManager$Stub$Proxy.registerUiTestAutomationService"
    "(IAccessibilityManager.java:1154)\n"
    "\tat android.app.UiAutomationConnection.registerUiTestAutomationServiceLocked(UiAutomationConnection.java:640)\n"
    "\tat android.app.UiAutomationConnection.connect(UiAutomationConnection.java:136)\n"
    "\tat android.app.UiAutomation.connectWithTimeout(UiAutomation.java:386)\n"
    "\tat com.android.uiautomator.core.UiAutomationShellWrapper.connect(UiAutomationShellWrapper.java:36)\n"
    "\tat com.android.commands.uiautomator.{command}.run({command}.java:{line})\n"
    "\tat com.android.commands.uiautomator.Launcher.main(Launcher.java:83)\n"
    "\tat com.android.internal.os.RuntimeInit.nativeFinishInit(Native Method)\n"
    "\tat com.android.internal.os.RuntimeInit.main(RuntimeInit.java:371)\n"
)


def uiautomator(framework: Framework, proc: pm.Process) -> int:
    args = proc.argv[1:]
    if not args or args[0] not in ("events", "dump"):
        proc.stdout.write("Usage: uiautomator <subcommand> [options]\n\nAvailable subcommands:\n\n"
                          "help: displays help message\n\nruntest: executes UI automation tests\n\n"
                          "dump: creates an XML dump of current UI hierarchy\n\n"
                          "events: prints out accessibility events until terminated\n")
        return 0 if not args or args[0] == "help" else 1
    proc.set_name("uiautomator")
    proc.signals.block(pm.ART_SIGBLK)
    command = "EventsCommand" if args[0] == "events" else "DumpCommand"
    if not framework.automation.acquire(proc.pid, "uiautomator"):
        message = already_registered_message()
        stack = UIAUTOMATOR_STACK.format(command=command, line=45 if command == "EventsCommand" else 78)
        proc.stderr.write(message + "\n" + stack)
        framework.logcat.log_uncaught(proc.pid, None, message + "\n" + stack)  # a tool: no process name
        framework.system.processes.terminate(proc, pm.SIGKILL)
        raise pm.Terminated(pm.SIGKILL)
    if args[0] == "dump":
        return _dump(framework, proc, args[1:])
    cond = proc.kernel.condition()
    events: list[str] = []

    def on_activity(event: str, component: str) -> None:
        if event != "foreground":
            return
        package = component.split("/", 1)[0]
        stamp = int((time.monotonic() - framework.booted) * 1000)
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

    framework.activity.add_listener(on_activity)
    proc.at_death(lambda: framework.activity.remove_listener(on_activity))
    try:
        while True:
            with proc.kernel.lock:
                proc.wait(cond, lambda: bool(events), None)
                batch = list(events)
                events.clear()
            for line in batch:
                proc.stdout.write(line)
    finally:
        framework.activity.remove_listener(on_activity)
        framework.automation.release(proc.pid)


def _dump(framework: Framework, proc: pm.Process, args: list[str]) -> int:
    target = next((a for a in args if not a.startswith("-")), "/sdcard/window_dump.xml")
    try:
        content = framework.display.content
        xml = content.dump_xml() if content is not None and hasattr(content, "dump_xml") else (
            "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">"
            f"<node index=\"0\" text=\"\" resource-id=\"\" class=\"android.widget.FrameLayout\" "
            f"package=\"{(framework.activity.foreground() or '').split('/', 1)[0]}\" "
            f"bounds=\"[0,0][{framework.display.width},{framework.display.height}]\" />"
            "</hierarchy>"
        )
        framework.system.fs.write_file(framework.system.fs.normalize(target, proc.cwd), xml.encode(), cred_of(proc))
    except OSError as exc:
        proc.stderr.write(f"ERROR: could not write {target}: {exc.strerror}\n")
        return 1
    finally:
        framework.automation.release(proc.pid)
    proc.stdout.write(f"UI hierchary dumped to: {target}\n")  # DumpCommand's own spelling, on stdout
    return 0
