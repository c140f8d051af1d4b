"""Target discovery: the `host:devices-l` listing, the getprop facts, and advice per state.

Every target the server lists is kept, whatever its state: an unauthorized or offline device is
the one a user most needs to hear about. Online targets get their facts from getprop; the others
get advice that says what to do.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from pytest_mobile_agent.adb.address import parse_server_socket
from pytest_mobile_agent.errors import MobileAgentError

ONLINE = "device"
NO_PERMISSIONS = "no permissions"
NO_SERIAL = "(no serial number)"

# The attribute keys `adb devices -l` writes after the state; devpath has its own prefix (usb:...).
_BLANKS = " \t\r\n\v\f"
_SEPARATOR = re.compile(r"[ \t\r\v\f]+")  # adb pads with spaces (tabs in the short form); ASCII only
_ATTRIBUTE = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*):(.*)$")

GETPROP_KEYS = ("ro.serialno", "ro.product.model", "ro.build.version.sdk", "ro.kernel.qemu", "ro.boot.qemu")


@dataclass(frozen=True)
class DeviceEntry:
    """One line of `host:devices-l`: the serial, the state verbatim, and the key:value attributes."""

    serial: str
    state: str
    attributes: dict[str, str] = field(default_factory=dict)

    @property
    def base_state(self) -> str:
        """The state without the server's explanation ("no permissions (...)" -> "no permissions")."""
        if self.state.startswith(NO_PERMISSIONS):
            return NO_PERMISSIONS
        return self.state.split(" ", 1)[0] if self.state else ""

    @property
    def online(self) -> bool:
        return self.state == ONLINE


@dataclass(frozen=True)
class Facts:
    """What getprop says about an online target."""

    hardware_serial: str | None
    model: str | None
    api_level: int | None
    emulator: bool


@dataclass(frozen=True)
class Target:
    """A target with its facts (online) or the advice for its state (every other state)."""

    serial: str
    state: str
    model: str | None
    api_level: int | None
    emulator: bool
    advice: str | None
    attributes: dict[str, str] = field(default_factory=dict)
    hardware_serial: str | None = None
    properties_error: str | None = None

    @property
    def online(self) -> bool:
        return self.state == ONLINE


# --- devices-l -----------------------------------------------------------------------------------


def parse_devices_l(text: str) -> list[DeviceEntry]:
    """Parse the `host:devices-l` (or `host:devices`) reply. Never raises; keeps every line's serial."""
    entries = []
    for line in text.split("\n"):
        entry = parse_device_line(line)
        if entry is not None:
            entries.append(entry)
    return entries


def parse_device_line(line: str) -> DeviceEntry | None:
    """One line: `SERIAL<spaces or tab>STATE[ ATTRIBUTES]`. The state may hold spaces (no permissions).

    Attributes are peeled from the end (adb puts transport_id last so that a parser can scan
    backwards); what stays between the serial and them is the state.
    """
    stripped = line.strip(_BLANKS)
    if not stripped:
        return None
    if stripped.startswith(NO_SERIAL):
        serial, rest = NO_SERIAL, stripped[len(NO_SERIAL) :]
    else:
        parts = _SEPARATOR.split(stripped, maxsplit=1)
        serial, rest = parts[0], parts[1] if len(parts) > 1 else ""
    words = [word for word in _SEPARATOR.split(rest) if word]
    attributes: dict[str, str] = {}
    while len(words) > 1:
        match = _ATTRIBUTE.match(words[-1])
        if match is None:
            break
        key, value = match.groups()
        attributes.setdefault(key, value)
        words.pop()
    state = " ".join(words) if words else "unknown"
    return DeviceEntry(serial=serial, state=state, attributes=dict(reversed(list(attributes.items()))))


# --- advice ----------------------------------------------------------------------------------------


def advice_for(entry: DeviceEntry) -> str | None:
    """What to do about a target in this state; None for an online device."""
    state = entry.base_state
    serial = entry.serial
    if entry.online:
        return None
    if state == "unauthorized":
        return (
            f"{serial} has not authorized this computer: unlock it and accept the USB debugging prompt on "
            "the device (tick \"Always allow from this computer\"); if no prompt shows, revoke the USB "
            "debugging authorizations in Developer options and reconnect the cable"
        )
    if state == "authorizing":
        return (
            f"{serial} is still authorizing this computer: wait a few seconds, and accept the prompt on the "
            "device if one shows"
        )
    if state == "offline":
        return (
            f"{serial} is offline: the adb server sees it but cannot talk to it. Wait for an emulator to "
            f"finish booting, else reconnect it (`adb -s {serial} reconnect`, or unplug and plug the cable "
            "again); restarting the server (`adb kill-server`) helps when it stays offline"
        )
    if state == NO_PERMISSIONS:
        explanation = entry.state[len(NO_PERMISSIONS) :].strip()
        detail = f" The server says: {explanation}." if explanation else ""
        return (
            f"the adb server has no permission to open {serial}'s USB device.{detail} On Linux, add a udev "
            "rule for the device and put your user in the plugdev group, then replug it"
        )
    if state == "connecting":
        return f"{serial} is still connecting: wait a few seconds and list the targets again"
    if state in {"bootloader", "recovery", "rescue", "sideload", "fastbootd"}:
        return f"{serial} is in {state} mode, not running Android: reboot it into Android (`adb -s {serial} reboot`)"
    return (
        f"{serial} is in state \"{entry.state}\", in which it cannot run tests: wait until "
        "`adb devices` lists it as \"device\", or reconnect it"
    )


# --- getprop facts -----------------------------------------------------------------------------


def getprop_command() -> str:
    return "; ".join(f"getprop {key}" for key in GETPROP_KEYS)


def facts_from_getprop(serial: str, output: str) -> Facts:
    """The facts from the output of `getprop_command()`: one line per key, in order.

    ValueError when the output does not have one line per key.
    """
    lines = output.replace("\r\n", "\n").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if len(lines) != len(GETPROP_KEYS):
        raise ValueError(f"getprop printed {len(lines)} lines for {len(GETPROP_KEYS)} properties")
    values = dict(zip(GETPROP_KEYS, (line.strip() for line in lines), strict=True))
    sdk = values["ro.build.version.sdk"]
    return Facts(
        hardware_serial=values["ro.serialno"] or None,
        model=values["ro.product.model"] or None,
        api_level=int(sdk) if sdk.isascii() and sdk.isdigit() else None,
        emulator=values["ro.kernel.qemu"] == "1" or values["ro.boot.qemu"] == "1" or is_emulator_serial(serial),
    )


def is_emulator_serial(serial: str) -> bool:
    return serial.startswith("emulator-")


def target_from(entry: DeviceEntry, facts: Facts | None = None, properties_error: str | None = None) -> Target:
    model = entry.attributes.get("model")
    if facts is not None:
        return Target(
            serial=entry.serial,
            state=entry.state,
            model=facts.model or model,
            api_level=facts.api_level,
            emulator=facts.emulator,
            advice=None,
            attributes=entry.attributes,
            hardware_serial=facts.hardware_serial,
        )
    return Target(
        serial=entry.serial,
        state=entry.state,
        model=model,
        api_level=None,
        emulator=is_emulator_serial(entry.serial),
        advice=advice_for(entry),
        attributes=entry.attributes,
        properties_error=properties_error,
    )


def format_target(target: Target) -> str:
    """One line as `adb devices -l` writes it, then the facts; the advice on its own line."""
    attributes = " ".join(f"{key}:{value}" for key, value in target.attributes.items())
    line = f"{target.serial:<22} {target.state}" + (f" {attributes}" if attributes else "")
    facts = []
    if target.online:
        if target.api_level is not None:
            facts.append(f"api {target.api_level}")
        if target.model:
            facts.append(f"model {target.model}")
        facts.append("emulator" if target.emulator else "device")
        if target.properties_error:
            facts.append(f"properties unreadable: {target.properties_error}")
        line += "  [" + ", ".join(facts) + "]"
    if target.advice:
        line += f"\n    advice: {target.advice}"
    return line


# --- a target on a named adb server ----------------------------------------------------------------

SERVER_PREFIX = "tcp:"


@dataclass(frozen=True)
class TargetName:
    """One `--android-serial` item: `SERIAL`, or `tcp:HOST:PORT/SERIAL` for a target on the adb
    server at HOST:PORT (another machine's, or a device farm's). `host`/`port` None: the default
    server (ADB_SERVER_SOCKET, ANDROID_ADB_SERVER_PORT, else 127.0.0.1:5037)."""

    serial: str
    host: str | None = None
    port: int | None = None

    @property
    def on_named_server(self) -> bool:
        return self.host is not None


def parse_target_name(item: str) -> TargetName:
    """`SERIAL` or `tcp:HOST:PORT/SERIAL` (`tcp:PORT/SERIAL`: HOST 127.0.0.1; IPv6 as `[::1]`).

    The serial may itself hold colons (`192.168.1.5:5555` from `adb connect`): the server part ends
    at the first `/`. ValueError when the server part names no valid host and port, or no serial.
    """
    if not item.startswith(SERVER_PREFIX):
        return TargetName(item)
    server, slash, serial = item.partition("/")
    if not slash or not serial:
        raise ValueError(f"{item!r} names no serial: write tcp:HOST:PORT/SERIAL")
    try:
        host, port = parse_server_socket(server, source="the adb server")
    except MobileAgentError as exc:
        raise ValueError(f"{item!r}: {exc}") from None
    return TargetName(serial, host, port)
