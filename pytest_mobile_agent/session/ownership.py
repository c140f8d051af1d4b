"""Whether an emulator controller found by its console port is the target's own (issue 16, item 2).

`--emulator-controller auto` finds a controller through the discovery files of the emulators
running on this host, matched by console port. A target named `emulator-5554` need not be one of
them: a served virtual device, or an emulator behind an adb server on another machine, carries the
same serial, and a controller used for it would send the taps to another screen. So before the
fast path is used:

- the target's adb server must be on this host (`adb_server_on_this_host`): a remote server's
  emulators write their discovery files on their own machine;
- the AVD the discovery file names (`avd.id`, and `avd.name`, which older emulators fill with the
  same name) must be the one the device says it runs: `ro.boot.qemu.avd_name`, else the older
  `ro.kernel.qemu.avd_name`. The emulator passes `hw->avd_name` (avdInfo_getName) to the guest as
  `androidboot.qemu.avd_name` with the AndroidbootProps features, as `qemu.avd_name` before them
  (aosp platform/external/qemu android/android-emu/android/userspace-boot-properties.cpp,
  getUserspaceBootProperties); the kernel's `androidboot.*` become `ro.boot.*` and the bare
  `qemu.*` `ro.kernel.qemu.*` (init's property service);
- after connecting, the display the controller reports (`hw.lcd.width`/`hw.lcd.height`) must be the
  device's physical size, as `wm size` prints it ("Physical size: 1080x2400",
  frameworks/base WindowManagerShellCommand).

Any difference, or a fact that cannot be read, leaves the controller unused; the status's warning
line says why. When several live discovery files claim the target's console port (two served
virtual devices' `emulator-5554`, each on its own adb server), the one whose AVD is the device's is
used, and when more than one names that AVD none is (`TargetCheck.choose`: it fails closed).
"""

from __future__ import annotations

import ipaddress
import re
import socket
from collections.abc import Sequence
from dataclasses import dataclass

from pytest_mobile_agent.agent.deploy import DeviceLike
from pytest_mobile_agent.emulator.endpoint import Endpoint
from pytest_mobile_agent.emulator.hardware import Hardware
from pytest_mobile_agent.errors import MobileAgentError

AVD_NAME_PROPERTIES = ("ro.boot.qemu.avd_name", "ro.kernel.qemu.avd_name")
IDENTITY_COMMAND = "; ".join([*(f"getprop {name}" for name in AVD_NAME_PROPERTIES), "wm size"])
_PHYSICAL_SIZE = re.compile(r"^Physical size: (\d+)x(\d+)\s*$", re.MULTILINE)


def adb_server_on_this_host(host: str | None) -> bool:
    """Whether an adb server at `host` runs on this machine: a loopback address, `localhost`, or
    an address this host's own names resolve to (`own_addresses`). Names are resolved."""
    if not host:
        return True  # no host: the default server, on this machine
    name = host.strip().removeprefix("[").removesuffix("]")
    if name.lower() == "localhost":
        return True
    addresses = _addresses(name)
    return bool(addresses) and all(_is_local_address(address) for address in addresses)


def _addresses(name: str) -> list[str]:
    try:
        return [str(ipaddress.ip_address(name))]
    except ValueError:
        pass
    try:
        infos = socket.getaddrinfo(name, None, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        return []
    return sorted({str(info[4][0]) for info in infos})


def _is_local_address(address: str) -> bool:
    parsed = ipaddress.ip_address(address.split("%", 1)[0])
    if parsed.is_loopback:
        return True
    if parsed.is_unspecified or parsed.is_multicast:
        return False
    return str(parsed) in own_addresses()


def own_addresses() -> frozenset[str]:
    """This host's addresses as its own names resolve (its host name and FQDN, through /etc/hosts or
    DNS), read without opening a socket. An interface its names do not resolve to counts as another
    host's: the controller is then left off, the safe side."""
    found: set[str] = set()
    for name in {socket.gethostname(), socket.getfqdn()}:
        try:
            infos = socket.getaddrinfo(name, None)
        except (OSError, UnicodeError):
            continue
        found.update(str(ipaddress.ip_address(str(info[4][0]).split("%", 1)[0])) for info in infos)
    return frozenset(found)


@dataclass(frozen=True)
class DeviceIdentity:
    """What the device says of the AVD it runs and of its display."""

    avd_name: str = ""
    avd_property: str = ""
    """The property that named the AVD, "" when none did."""
    display: tuple[int, int] | None = None
    """`wm size`'s physical size, None when it printed none."""

    @classmethod
    def parse(cls, output: str) -> DeviceIdentity:
        """From the output of `IDENTITY_COMMAND`: one line per property, then `wm size`'s."""
        lines = output.replace("\r\n", "\n").split("\n")
        values = [line.strip() for line in lines[: len(AVD_NAME_PROPERTIES)]]
        named = next(
            ((prop, value) for prop, value in zip(AVD_NAME_PROPERTIES, values, strict=False) if value), ("", "")
        )
        size = _PHYSICAL_SIZE.search("\n".join(lines[len(AVD_NAME_PROPERTIES):]))
        display = (int(size.group(1)), int(size.group(2))) if size else None
        return cls(avd_name=named[1], avd_property=named[0], display=display)


@dataclass
class TargetCheck:
    """How to confirm that a controller is the target's: its adb server's host and address, and
    the device (anything with `shell(cmd)`), read once, when a controller is found."""

    serial: str
    server_host: str | None
    server_address: str
    device: DeviceLike
    _identity: DeviceIdentity | None = None

    @property
    def server_local(self) -> bool:
        return adb_server_on_this_host(self.server_host)

    def identity(self) -> DeviceIdentity:
        if self._identity is None:
            self._identity = DeviceIdentity.parse(self.device.shell(IDENTITY_COMMAND).text())
        return self._identity

    # --- the reasons not to use a controller ----------------------------------------------------

    def remote_reason(self) -> str | None:
        if self.server_local:
            return None
        return (f"{self.serial} is on the adb server at {self.server_address}, not on this host, so no "
                "discovery file here can be its emulator's; name its controller with "
                "--emulator-controller http://HOST:PORT to use it")

    def avd_reason(self, endpoint: Endpoint) -> str | None:
        """Why the endpoint's discovery file is not the device's emulator, None when it is."""
        where = f"the discovery file {endpoint.discovery_file}" if endpoint.discovery_file else "the discovery file"
        names = endpoint.avd_names
        if not names:
            return f"{where} names no AVD (avd.id, avd.name), so it cannot be confirmed as {self.serial}'s emulator"
        try:
            identity = self.identity()
        except MobileAgentError as exc:
            return f"cannot read {self.serial}'s AVD name and display size to confirm the controller: {exc}"
        if not identity.avd_name:
            return (f"{self.serial} names no AVD ({' and '.join(AVD_NAME_PROPERTIES)} are empty), so {where} "
                    f"for AVD {names[0]!r} cannot be confirmed as its emulator's")
        if identity.avd_name not in names:
            return (f"{where} names AVD {names[0]!r}, and {self.serial} runs AVD {identity.avd_name!r} "
                    f"({identity.avd_property}): another emulator on the same console port")
        return None

    def choose(self, endpoints: Sequence[Endpoint]) -> tuple[Endpoint | None, str | None]:
        """The one endpoint of those claiming the target's console port whose AVD is the
        device's, or why none is used. Two that name the device's AVD cannot be told apart: the
        check fails closed rather than send the taps to the wrong screen."""
        if len(endpoints) == 1:
            reason = self.avd_reason(endpoints[0])
            return (None, reason) if reason else (endpoints[0], None)
        reasons = [self.avd_reason(endpoint) for endpoint in endpoints]
        own = [endpoint for endpoint, reason in zip(endpoints, reasons, strict=True) if reason is None]
        if len(own) == 1:
            return own[0], None
        port = endpoints[0].console_port
        files = ", ".join(str(e.discovery_file or e.url) for e in (own or endpoints))
        if not own:
            return None, (f"{len(endpoints)} discovery files claim console port {port} ({files}), and none names "
                          f"{self.serial}'s AVD: {reasons[0]}")
        return None, (f"{len(own)} discovery files claim console port {port} for AVD {self.identity().avd_name!r} "
                      f"({files}), so which is {self.serial}'s emulator cannot be told; name its controller with "
                      "--emulator-controller http://HOST:PORT")

    def display_reason(self, endpoint: Endpoint, hardware: Hardware) -> str | None:
        """Why the connected controller's display is not the device's, None when it is."""
        try:
            display = self.identity().display
        except MobileAgentError as exc:  # pragma: no cover - identity() was read before connecting
            return f"cannot read {self.serial}'s display size to confirm the controller: {exc}"
        controller = (hardware.width, hardware.height)
        if display is None:
            return (f"`wm size` on {self.serial} printed no physical size, so the controller at {endpoint.url} "
                    "cannot be confirmed")
        if display != controller:
            return (f"the controller at {endpoint.url} has a {controller[0]}x{controller[1]} display, and "
                    f"{self.serial}'s physical size is {display[0]}x{display[1]} (wm size): another emulator")
        return None


def foreign_warning(serial: str, reason: str) -> str:
    """The status's warning line when a found controller is not the target's."""
    return f"emulator control endpoint not used for {serial} ({reason}): taps and frames fall back to the agent."
