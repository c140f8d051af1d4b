"""The radios and, on the emulator, the emulated network's speed and latency.

Airplane mode: `cmd connectivity airplane-mode enable|disable`, read back with the same command
with no argument (`enabled` / `disabled`; ConnectivityService's shell command, Android 11+). Wi-Fi:
`svc wifi enable|disable` (the svc tool), read back from `dumpsys wifi` ("Wi-Fi is enabled",
WifiServiceImpl.dump). Mobile data: `svc data enable|disable`, read back from the global setting
`mobile_data` (TelephonyManager.setDataEnabled persists it). A change of several switches is one
change: when the device refuses one (a device policy, DISALLOW_AIRPLANE_MODE, ...), those already
made are put back before the error. Each switch the test changed is put back at the end.

On the emulator, `network speed SPEED` and `network delay DELAY` on its console (console.cpp:
gsm, hscsd, gprs, edge, umts, hsdpa, lte, evdo, 5g, full; none for no latency; kbit/s or ms as
numbers, UP:DOWN, MIN:MAX), put back from `network status` at the end.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pytest_mobile_agent.control import shell
from pytest_mobile_agent.control.journal import Journal
from pytest_mobile_agent.control.means import Paths
from pytest_mobile_agent.errors import InvalidArgument, StateRefused

SPEEDS = ("gsm", "hscsd", "gprs", "edge", "umts", "hsdpa", "lte", "evdo", "5g", "full")
DELAYS = ("gsm", "hscsd", "gprs", "edge", "umts", "hsdpa", "lte", "evdo", "5g", "none")
_NUMBERS = re.compile(r"\d+(\.\d+)?(:\d+(\.\d+)?)?")
_WIFI = re.compile(r"Wi-Fi is (\w+)")
POLICY_ADVICE = "A device policy (a managed device's user restriction) may forbid the change"


@dataclass(frozen=True)
class NetworkState:
    airplane: bool
    wifi: bool
    data: bool


def check_value(name: str, value: object, names: tuple[str, ...]) -> str:
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0:
        value = f"{value:g}"
    if not isinstance(value, str) or not (value in names or _NUMBERS.fullmatch(value)):
        raise InvalidArgument(f"{name} must be one of {', '.join(names)}, a number or A:B, not {value!r}")
    return value


class Network:
    def __init__(self, paths: Paths, journal: Journal) -> None:
        self.paths = paths
        self.journal = journal

    def current(self) -> NetworkState:
        device = self.paths.device
        airplane = shell.text(device, "cmd connectivity airplane-mode").strip() == "enabled"
        wifi = _WIFI.search(shell.text(device, "dumpsys wifi"))
        data = shell.text(device, "settings get global mobile_data").strip() == "1"
        return NetworkState(airplane, wifi is not None and wifi.group(1) == "enabled", data)

    def set(self, *, airplane: bool | None = None, wifi: bool | None = None, data: bool | None = None) -> None:
        wanted = {"airplane": airplane, "wifi": wifi, "data": data}
        for name, value in wanted.items():
            if value is not None and not isinstance(value, bool):
                raise InvalidArgument(f"{name} must be True, False or None, not {value!r}")
        before = self.current()
        with self.journal.change():
            for name, value in wanted.items():
                if value is not None and getattr(before, name) != value:
                    self._switch(name, value, getattr(before, name))

    def _switch(self, name: str, on: bool, was: bool) -> None:
        self.journal.remember(name, lambda: self._command(name, was))
        self._command(name, on)
        now = shell.settle(self.current, lambda state: getattr(state, name) == on, between=self.paths.between_checks)
        if getattr(now, name) != on:
            raise StateRefused(f"turning {_LABELS[name]} {'on' if on else 'off'}: the device still reports it "
                               f"{'on' if was else 'off'} ({_READ_BACK[name]})", advice=POLICY_ADVICE)

    def _command(self, name: str, on: bool) -> None:
        command = {"airplane": f"cmd connectivity airplane-mode {'enable' if on else 'disable'}",
                   "wifi": f"svc wifi {'enable' if on else 'disable'}",
                   "data": f"svc data {'enable' if on else 'disable'}"}[name]
        shell.run(self.paths.device, command, what=f"turning {_LABELS[name]} {'on' if on else 'off'}",
                  advice=POLICY_ADVICE)

    def set_speed(self, speed: str) -> None:
        value = check_value("speed", speed, SPEEDS)
        self._console_change("network speed", f"network speed {value}")

    def set_delay(self, delay: str) -> None:
        value = check_value("delay", delay, DELAYS)
        self._console_change("network delay", f"network delay {value}")

    def _console_change(self, what: str, command: str) -> None:
        with self.paths.open_console(f"setting the {what}") as console:
            if not self.journal.knows("emulated network"):
                status = console.network_status()
                speed = (f"{status.upload_bps / 1000:g}:{status.download_bps / 1000:g}"
                         if status.upload_bps or status.download_bps else "full")
                delay = f"{status.min_latency_ms}:{status.max_latency_ms}" if status.max_latency_ms else "none"
                self.journal.remember("emulated network", lambda: self._put_back_link(speed, delay))
            console.run(command)

    def _put_back_link(self, speed: str, delay: str) -> None:
        with self.paths.open_console("restoring the emulated network") as console:
            console.network_speed(speed)
            console.network_delay(delay)


_LABELS = {"airplane": "airplane mode", "wifi": "Wi-Fi", "data": "mobile data"}
_READ_BACK = {"airplane": "`cmd connectivity airplane-mode`", "wifi": "`dumpsys wifi`",
              "data": "`settings get global mobile_data`"}
