"""The battery's level and charging.

On the emulator, the emulated battery: setBattery with the level, the charger (AC while charging,
none while not) and the status, the battery the test found set again at the end (getBattery). On a
device, BatteryService's shell command (BatteryService.onShellCommand, API 23+): `dumpsys battery set
level N`, `set ac 1` / `unplug`, `set status 2|3` (BatteryManager's CHARGING, DISCHARGING), which
stop the service's updates from the hardware until `dumpsys battery reset`, the teardown. Either
way the system's view is read back from `dumpsys battery` (BatteryService.dumpInternal).
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

from pytest_mobile_agent.control import shell
from pytest_mobile_agent.control.journal import Journal
from pytest_mobile_agent.control.means import Paths
from pytest_mobile_agent.emulator.hardware_state import BatteryStatus
from pytest_mobile_agent.errors import InvalidArgument, StateRefused

STATUS_CHARGING, STATUS_DISCHARGING, STATUS_FULL = 2, 3, 5
_FIELD = re.compile(r"^\s*(AC powered|USB powered|Wireless powered|status|level): (\S+)$", re.MULTILINE)


@dataclass(frozen=True)
class BatteryState:
    """The battery as the system sees it: `level` percent, `charging`, and the charger plugged in
    (`ac`, `usb`, `wireless`, or None)."""

    level: int
    charging: bool
    plugged: str | None


def check_level(level: object) -> int | None:
    if level is None:
        return None
    if isinstance(level, bool) or not isinstance(level, int) or not 0 <= level <= 100:
        raise InvalidArgument(f"level must be a whole percentage from 0 to 100, got {level!r}")
    return level


def read_battery(text: str) -> BatteryState:
    fields = dict(_FIELD.findall(text))
    plugged = next((name for name, key in (("ac", "AC powered"), ("usb", "USB powered"),
                                          ("wireless", "Wireless powered")) if fields.get(key) == "true"), None)
    status = int(fields.get("status", "1"))
    charging = status == STATUS_CHARGING or (status == STATUS_FULL and plugged is not None)
    return BatteryState(int(fields.get("level", "0")), charging, plugged)


class Battery:
    def __init__(self, paths: Paths, journal: Journal) -> None:
        self.paths = paths
        self.journal = journal

    def current(self) -> BatteryState:
        return read_battery(shell.text(self.paths.device, "dumpsys battery"))

    def set(self, level: int | None = None, charging: bool | None = None) -> None:
        level = check_level(level)
        if charging is not None and not isinstance(charging, bool):
            raise InvalidArgument(f"charging must be True, False or None, not {charging!r}")
        now = self.current()
        wanted_level = now.level if level is None else level
        wanted_charging = now.charging if charging is None else charging
        if self.paths.controller is not None:
            self._set_emulated(wanted_level, wanted_charging)
        else:
            self._set_through_service(level, charging)
        shown = shell.settle(self.current, lambda b: (b.level, b.charging) == (wanted_level, wanted_charging),
                             between=self.paths.between_checks)
        if (shown.level, shown.charging) != (wanted_level, wanted_charging):
            raise StateRefused(f"setting the battery to {wanted_level}% "
                               f"{'charging' if wanted_charging else 'not charging'}: `dumpsys battery` reports "
                               f"{shown.level}% {'charging' if shown.charging else 'not charging'}")

    def _set_emulated(self, level: int, charging: bool) -> None:
        controller = self.paths.controller
        assert controller is not None
        before = controller.battery()
        self.journal.remember("battery", lambda: controller.set_battery(before))
        status: BatteryStatus = ("full" if level == 100 else "charging") if charging else "discharging"
        controller.set_battery(dataclasses.replace(before, level=level, charger="ac" if charging else "none",
                                                   status=status, present=True))

    def _set_through_service(self, level: int | None, charging: bool | None) -> None:
        device = self.paths.device
        self.journal.remember("battery", lambda: shell.run(device, "dumpsys battery reset",
                                                           what="handing the battery back to the hardware"))
        with self.journal.change():
            if level is not None:
                shell.run(device, f"dumpsys battery set level {level}", what="setting the battery level")
            if charging is True:
                shell.run(device, "dumpsys battery set ac 1", what="plugging the charger in")
                shell.run(device, f"dumpsys battery set status {STATUS_CHARGING}", what="charging the battery")
            elif charging is False:
                shell.run(device, "dumpsys battery unplug", what="unplugging the charger")
                shell.run(device, f"dumpsys battery set status {STATUS_DISCHARGING}", what="discharging the battery")
