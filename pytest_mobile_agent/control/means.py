"""Which path each capability of the device state takes on this target, and the means of each:

* the shell (`adb shell`): rotation, the screen and the lock screen, links and activities,
  notifications, airplane mode, Wi-Fi and data, dark mode and font scale, on a device and on the
  emulator alike; on a device also the battery and the location;
* the emulator's gRPC controller: the battery (setBattery), the location (setGps), the fingerprint
  sensor (sendFingerprint) and the posture (setPosture, getPhysicalModel);
* the emulator's console: the emulated network's speed and latency (`network speed|delay`);
* the agent: the clipboard (its `clipboard_get` / `clipboard_set`, the overlay suppressed).

An emulator whose controller is off (`--emulator-controller off`, or unavailable) takes the
device's path for the battery and the location and cannot touch a fingerprint or set a posture.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pytest_mobile_agent.adb import Device
from pytest_mobile_agent.agent import Connection
from pytest_mobile_agent.emulator import Controller
from pytest_mobile_agent.emulator.console import Console
from pytest_mobile_agent.errors import MobileAgentError, NotSupported
from pytest_mobile_agent.mirror import Mirror

AVD_NAME_PROPERTIES = ("ro.boot.qemu.avd_name", "ro.kernel.qemu.avd_name")


@dataclass(frozen=True)
class ConsoleAccess:
    """Where the target's emulator console is: its port on this host and the token file."""

    port: int
    token_path: Path | None = None

    def open(self, serial: str) -> Console:
        return Console.connect(self.port, serial=serial, token_path=self.token_path)


@dataclass(frozen=True)
class Paths:
    device: Device
    emulator: bool
    controller: Controller | None = None
    console: ConsoleAccess | None = None
    agent: Connection | None = None
    screen: Mirror | None = None

    @property
    def serial(self) -> str:
        return self.device.serial

    def needs_controller(self, what: str, rpc: str) -> Controller:
        if self.controller is not None:
            return self.controller
        if self.emulator:
            raise NotSupported(f"{what} needs the emulator's controller ({rpc}), which this run does not use",
                               advice="Run with --emulator-controller auto and start the emulator with "
                                      "`-grpc-use-token` (the status section says why the controller is off)")
        raise NotSupported(f"{what} is not available on a device: only the emulator's controller ({rpc}) does it")

    def open_console(self, what: str) -> Console:
        """The emulator's console, once it says it is this target's (its `avd name` is the
        device's AVD); NotSupported naming why otherwise."""
        if self.console is None:
            if not self.emulator:
                raise NotSupported(f"{what} is not available on a device: only the emulator's console does it")
            raise NotSupported(f"{what} needs the emulator's console, which this run cannot reach for {self.serial}")
        try:
            console = self.console.open(self.serial)
        except MobileAgentError as exc:
            raise NotSupported(f"{what} needs the emulator's console: {exc}",
                               advice=f"`adb -s {self.serial} emu avd name` reaches the console the same way, "
                                      "with the token in ~/.emulator_console_auth_token") from None
        wanted = {self.device.getprop(name) for name in AVD_NAME_PROPERTIES} - {""}
        name = console.avd_name()
        if wanted and name not in wanted:
            console.close()
            raise NotSupported(f"{what}: the console on port {self.console.port} is AVD {name!r}'s, not "
                               f"{self.serial}'s ({', '.join(sorted(wanted))})")
        return console

    def needs_agent(self, what: str) -> Connection:
        if self.agent is None:
            raise NotSupported(f"{what} goes through the agent, which this device control was made without")
        return self.agent

    def between_checks(self) -> bool:
        """Between two checks of a wait (a state read back, an activity waited for): the screen's
        watchers take their look (mirror/watchers.py); True when one acted."""
        return self.screen.steps.between_polls() if self.screen is not None else False

    def screen_changed(self) -> None:
        """A change that alters the screen was made: the screen's replica is stale, and its next
        query reads afresh."""
        if self.screen is not None:
            self.screen.invalidate()

    def needs_screen(self, what: str) -> Mirror:
        if self.screen is None:
            raise NotSupported(f"{what} looks at the screen, which this device control was made without")
        return self.screen

    def describe(self) -> list[str]:
        """The status section's lines: which path each capability takes here."""
        if self.controller is not None:
            hardware = "battery and location through the emulator's controller (setBattery, setGps), fingerprint " \
                       "and posture too (sendFingerprint, setPosture)"
        else:
            hardware = ("battery and location through the shell (dumpsys battery, cmd location with a test "
                        "provider); fingerprint and posture " + ("need the emulator's controller, which is off"
                                                                 if self.emulator else "are not available on a device"))
        console = ("network speed and delay through the emulator's console" if self.console is not None
                   else "network speed and delay need the emulator's console, "
                        + ("which this run cannot reach" if self.emulator else "not available on a device"))
        return [f"device state of {self.serial}: {hardware}; {console}; rotation, screen, links, notifications, "
                "airplane mode, Wi-Fi, data and appearance through the shell; the clipboard through the agent"]
