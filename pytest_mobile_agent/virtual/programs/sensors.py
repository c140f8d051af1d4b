"""The battery, location and app-op commands (android/battery.py, android/location.py):

* `dumpsys battery` prints BatteryService's state; `dumpsys battery set KEY VALUE` (ac, usb,
  wireless, dock, status, level, present, counter, temp, invalid), `unplug`, `reset` and `get KEY`
  as BatteryService.onShellCommand serves them ("No property specified", "No value specified",
  "Bad value: V", "Unknown set option: K");
* `cmd location is-location-enabled|set-location-enabled [--user N] true|false` and `cmd location
  providers add-test-provider|remove-test-provider|set-test-provider-enabled|
  set-test-provider-location NAME ...` (LocationShellCommand, Android 14); a refusal is
  ShellCommand.exec's report, "Exception occurred while executing 'providers':" and the exception;
* `dumpsys location`: the switch and each provider's last location, as LocationProviderManager.dump
  prints it (`last location=Location[gps 48.856600,2.352200 hAcc=100 et=+... mock]`, Location.toString);
* `appops get PACKAGE [OP]` (`MOCK_LOCATION: allow`, or "No operations.") and `appops set PACKAGE OP
  MODE` (AppOpsService.Shell), OP as `android:mock_location` or `MOCK_LOCATION`.
"""

from __future__ import annotations

from pytest_mobile_agent.virtual.android.battery import Battery
from pytest_mobile_agent.virtual.android.framework import Framework
from pytest_mobile_agent.virtual.android.location import (
    MOCK_LOCATION,
    OP_MODES,
    Fix,
    MockLocationRefused,
    TestProvider,
)
from pytest_mobile_agent.virtual.kernel import process as pm

BATTERY_FIELDS = {"ac": "ac", "usb": "usb", "wireless": "wireless", "dock": "dock", "status": "status",
                  "level": "level", "present": "present", "counter": "counter", "temp": "temperature"}
BOOLEAN_FIELDS = {"ac", "usb", "wireless", "dock", "present"}


def dumpsys_battery(framework: Framework, proc: pm.Process, args: list[str]) -> int:
    battery = framework.state.battery
    args = [a for a in args if a != "-f"]
    if not args or args[0] == "-a":
        proc.stdout.write(battery.dump())
        return 0
    if args[0] == "set":
        return _battery_set(battery, proc, args[1:])
    if args[0] == "unplug":
        battery.override(ac=False, usb=False, wireless=False, dock=False)
        return 0
    if args[0] == "reset":
        battery.reset()
        return 0
    if args[0] == "get" and len(args) > 1:
        field = BATTERY_FIELDS.get(args[1])
        value = getattr(battery.info, field) if field else None
        proc.stdout.write(f"Unknown get option: {args[1]}\n" if field is None
                          else f"{str(value).lower() if isinstance(value, bool) else value}\n")
        return 0
    proc.stdout.write("Battery service (battery) commands:\n  set [-f] [ac|usb|wireless|status|level|temp|present|"
                      "counter|invalid] <value>\n  unplug [-f]\n  reset [-f]\n")
    return 0


def _battery_set(battery: Battery, proc: pm.Process, args: list[str]) -> int:
    if not args:
        proc.stdout.write("No property specified\n")
        return 255
    if len(args) < 2:
        proc.stdout.write("No value specified\n")
        return 255
    key, value = args[0], args[1]
    try:
        number = int(value)
    except ValueError:
        proc.stdout.write(f"Bad value: {value}\n")
        return 255
    if key == "invalid":
        battery.invalid_charger = number
    elif key in BATTERY_FIELDS:
        battery.override(**{BATTERY_FIELDS[key]: number != 0 if key in BOOLEAN_FIELDS else number})
    else:
        proc.stdout.write(f"Unknown set option: {key}\n")
    return 0


def cmd_location(framework: Framework, proc: pm.Process, args: list[str]) -> int:
    location = framework.state.location
    args = _without_user(args)
    if args[:1] == ["is-location-enabled"]:
        proc.stdout.write("true\n" if location.enabled else "false\n")
        return 0
    if len(args) == 2 and args[0] == "set-location-enabled":
        location.set_enabled(args[1].lower() == "true")
        return 0
    if len(args) >= 3 and args[0] == "providers":
        try:
            _providers(framework, args[1], args[2], args[3:])
        except (MockLocationRefused, ValueError) as exc:
            kind = "" if isinstance(exc, MockLocationRefused) else "java.lang.IllegalArgumentException: "
            proc.stderr.write(f"\nException occurred while executing 'providers':\n{kind}{exc}\n"
                              "\tat com.android.server.location.LocationShellCommand.onCommand"
                              "(LocationShellCommand.java:73)\n")
            return 255
        return 0
    proc.stdout.write("Location service commands:\n  is-location-enabled [--user <USER_ID>]\n"
                      "  set-location-enabled [--user <USER_ID>] true|false\n"
                      "  providers add-test-provider|remove-test-provider|set-test-provider-enabled|"
                      "set-test-provider-location <PROVIDER> ...\n")
    return 0 if not args else 255


def _without_user(args: list[str]) -> list[str]:
    out, skip = [], False
    for arg in args:
        if skip:
            skip = False
        elif arg == "--user":
            skip = True
        else:
            out.append(arg)
    return out


def _providers(framework: Framework, verb: str, name: str, options: list[str]) -> None:
    """One `cmd location providers` verb; ValueError with IllegalArgumentException's message."""
    location = framework.state.location
    if verb == "add-test-provider":
        location.check_mock()
        location.test_providers[name] = TestProvider()
        return
    provider = location.test_providers.get(name)
    if verb not in ("remove-test-provider", "set-test-provider-enabled", "set-test-provider-location"):
        raise ValueError(f"Unknown command: {verb}")
    location.check_mock()
    if provider is None:
        raise ValueError(f"{name} provider is not a test provider")
    if verb == "remove-test-provider":
        del location.test_providers[name]
    elif verb == "set-test-provider-enabled":
        provider.enabled = bool(options) and options[0].lower() == "true"
    else:
        provider.fix = _test_fix(options)


def _test_fix(options: list[str]) -> Fix:
    latitude = longitude = None
    accuracy = 100.0
    while options:
        option = options.pop(0)
        if not options:
            raise ValueError(f"Argument expected after \"{option}\"")
        value = options.pop(0)
        if option == "--location":
            parts = value.split(",")
            if len(parts) != 2:
                raise ValueError(f"Location argument must be in the form of \"<LATITUDE>,<LONGITUDE>\", not "
                                 f"[{', '.join(parts)}]")
            latitude, longitude = float(parts[0]), float(parts[1])
        elif option == "--accuracy":
            accuracy = float(value)
        elif option != "--time":
            raise ValueError(f"Unknown option: {option}")
    if latitude is None or longitude is None:
        raise ValueError("Option \"--location\" is required")
    return Fix(latitude, longitude, accuracy=accuracy, mock=True)


def dumpsys_location(framework: Framework, proc: pm.Process, args: list[str]) -> int:
    location = framework.state.location
    lines = ["Location Manager State:", f"  Location Setting: {'true' if location.enabled else 'false'}"]
    for name in ("gps", "network", "fused", *sorted(set(location.test_providers) - {"gps", "network", "fused"})):
        fix = location.last_fix(name)
        lines.append(f"  {name} provider:")
        if name in location.test_providers:
            lines.append("    mock provider")
        lines.append(f"    last location={_location_text(name, fix)}")
    proc.stdout.write("\n".join(lines) + "\n")
    return 0


def _location_text(provider: str, fix: Fix | None) -> str:
    """Location.toString, its leading fields."""
    if fix is None:
        return "null"
    altitude = f" alt={fix.altitude}" if fix.altitude is not None else ""
    return (f"Location[{provider} {fix.latitude:.6f},{fix.longitude:.6f} hAcc={fix.accuracy:.0f} et=+1s{altitude}"
            f"{' mock' if fix.mock else ''}]")


def appops(framework: Framework, proc: pm.Process) -> int:
    args = _without_user(proc.argv[1:])
    location = framework.state.location
    if len(args) >= 2 and args[0] == "get":
        op = _op_name(args[2]) if len(args) > 2 else MOCK_LOCATION
        mode = location.op_mode(args[1], op)
        proc.stdout.write("No operations.\n" if mode == "default" else f"{op}: {mode}\n")
        return 0
    if len(args) == 4 and args[0] == "set":
        if args[3] not in OP_MODES:
            proc.stderr.write(f"Error: Mode {args[3]} is not valid\n")
            return 255
        location.set_op(args[1], _op_name(args[2]), args[3])
        return 0
    proc.stdout.write("AppOps service (appops) commands:\n  set [--user <USER_ID>] <PACKAGE | UID> <OP> <MODE>\n"
                      "  get [--user <USER_ID>] <PACKAGE | UID> [<OP>]\n")
    return 0 if not args else 255


def _op_name(op: str) -> str:
    """`android:mock_location` or `MOCK_LOCATION` as AppOpsManager names the op."""
    return op.removeprefix("android:").upper()
