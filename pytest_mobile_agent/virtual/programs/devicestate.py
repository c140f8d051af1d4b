"""The shell commands that change the device state a test sets (android/state.py), each as the
platform's shell command prints and fails:

* `cmd uimode night [yes|no|auto|custom]` (UiModeManagerService.Shell.handleNightMode: prints
  `Night mode: MODE` after a change too; a bad mode is "Error: mode must be 'yes', 'no', or 'auto',
  or 'custom'", status 255);
* `cmd connectivity airplane-mode [enable|disable]` (ConnectivityService's ShellCmd: no argument
  prints `enabled` or `disabled`);
* `svc wifi|data enable|disable` (the svc tool: Svc's WifiCommand and DataCommand, `svc wifi` a
  front for `cmd wifi set-wifi-enabled`), `cmd wifi set-wifi-enabled enabled|disabled`,
  `cmd wifi status` ("Wifi is enabled" / "Wifi is disabled", WifiShellCommand) and `dumpsys wifi`
  ("Wi-Fi is enabled", WifiServiceImpl.dump), `cmd phone data enable|disable` (TelephonyShellCommand);
* `cmd statusbar expand-notifications|collapse` (StatusBarShellCommand, silent) and
  `cmd notification post [-t TITLE] TAG TEXT` (NotificationShellCommand: posts as the shell).
"""

from __future__ import annotations

from pytest_mobile_agent.virtual.android.framework import Framework
from pytest_mobile_agent.virtual.android.notifications import SHELL_PACKAGE, Notification
from pytest_mobile_agent.virtual.android.uimode import NIGHT_MODES
from pytest_mobile_agent.virtual.kernel import process as pm

SWITCHES = {"enable": True, "disable": False, "enabled": True, "disabled": False}


def cmd_uimode(framework: Framework, proc: pm.Process, args: list[str]) -> int:
    uimode = framework.state.uimode
    if args[:1] != ["night"]:
        proc.stdout.write("UiModeManager service (uimode) commands:\n  night [yes|no|auto|custom]\n"
                          "    Set or read night mode.\n")
        return 0 if not args else 255
    if len(args) > 1:
        if args[1] not in NIGHT_MODES:
            proc.stderr.write("Error: mode must be 'yes', 'no', or 'auto', or 'custom'\n")
            return 255
        uimode.set_night(args[1])
    proc.stdout.write(f"Night mode: {uimode.night}\n")
    return 0


def cmd_connectivity(framework: Framework, proc: pm.Process, args: list[str]) -> int:
    radios = framework.state.radios
    if args[:1] == ["airplane-mode"]:
        if len(args) == 1:
            proc.stdout.write("enabled\n" if radios.airplane else "disabled\n")
            return 0
        if args[1] in ("enable", "disable"):
            radios.set_airplane(args[1] == "enable")
            return 0
    proc.stdout.write("Connectivity service commands:\n  airplane-mode [enable|disable]\n"
                      "    Turn airplane mode on or off.\n  airplane-mode\n    Get airplane mode.\n")
    return 255


def cmd_wifi(framework: Framework, proc: pm.Process, args: list[str]) -> int:
    radios = framework.state.radios
    if args[:1] == ["status"]:
        proc.stdout.write("Wifi is enabled\n" if radios.wifi else "Wifi is disabled\n")
        return 0
    if len(args) == 2 and args[0] == "set-wifi-enabled" and args[1] in ("enabled", "disabled"):
        radios.set_wifi(args[1] == "enabled")
        return 0
    proc.stderr.write("Expected 'enabled' or 'disabled' but found '" + (args[1] if len(args) > 1 else "") + "'\n"
                      if args[:1] == ["set-wifi-enabled"] else f"Unknown command: {' '.join(args)}\n")
    return 255


def dumpsys_wifi(framework: Framework, proc: pm.Process, args: list[str]) -> int:
    radios = framework.state.radios
    proc.stdout.write(f"Wi-Fi is {'enabled' if radios.wifi else 'disabled'}\n"
                      f"Verbose logging is off\nStay-awake conditions: 0\n")
    return 0


def cmd_phone(framework: Framework, proc: pm.Process, args: list[str]) -> int:
    if len(args) == 2 and args[0] == "data" and args[1] in ("enable", "disable"):
        framework.state.radios.set_data(args[1] == "enable")
        return 0
    proc.stderr.write("Telephony shell commands:\n  data enable|disable\n")
    return 255


def svc(framework: Framework, proc: pm.Process) -> int:
    """`svc wifi|data enable|disable`; anything else prints svc's usage."""
    args = proc.argv[1:]
    if len(args) == 2 and args[0] in ("wifi", "data") and args[1] in ("enable", "disable"):
        radios = framework.state.radios
        (radios.set_wifi if args[0] == "wifi" else radios.set_data)(args[1] == "enable")
        return 0
    proc.stdout.write("Available commands:\n    help     Show information about the subcommands\n"
                      "    power    Control the power manager\n    data     Control mobile data connectivity\n"
                      "    wifi     Control the Wi-Fi manager\n")
    return 0


def cmd_statusbar(framework: Framework, proc: pm.Process, args: list[str]) -> int:
    notifications = framework.state.notifications
    if args[:1] == ["expand-notifications"]:
        notifications.expand(True)
        return 0
    if args[:1] == ["collapse"]:
        notifications.expand(False)
        return 0
    proc.stdout.write("Status bar commands:\n  expand-notifications\n    Open the notifications panel.\n"
                      "  collapse\n    Collapse the notifications and settings panel.\n")
    return 0 if not args else 255


def cmd_notification(framework: Framework, proc: pm.Process, args: list[str]) -> int:
    if args[:1] != ["post"]:
        proc.stdout.write("usage: cmd notification SUBCMD [args]\n\nSUBCMDs:\n  post [flags] <tag> <text>\n")
        return 0 if not args else 255
    title = ""
    rest = list(args[1:])
    while rest and rest[0].startswith("-"):
        flag = rest.pop(0)
        if flag in ("-t", "--title") and rest:
            title = rest.pop(0)
        elif flag in ("-S", "--style", "-c", "--conversation", "-I", "--large-icon", "-i", "--icon") and rest:
            rest.pop(0)
    if len(rest) < 2:
        proc.stderr.write("usage: cmd notification post [flags] <tag> <text>\n")
        return 255
    framework.state.notifications.post(Notification(SHELL_PACKAGE, rest[0], title, " ".join(rest[1:])))
    return 0
