"""The battery of the virtual device: what the emulated hardware reports (the goldfish battery the
emulator's setBattery and its extended controls drive) and what BatteryService tells the system.

BatteryService (frameworks/base services/core/java/com/android/server/BatteryService.java, Android
14) follows the health HAL until `dumpsys battery set|unplug` stops updates and overrides fields;
`dumpsys battery reset` takes the HAL's values again. Its codes are BatteryManager's: status
1 unknown, 2 charging, 3 discharging, 4 not charging, 5 full; health 2 good, 3 overheat, 4 dead,
5 over voltage, 6 unspecified failure.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

STATUS_UNKNOWN, STATUS_CHARGING, STATUS_DISCHARGING, STATUS_NOT_CHARGING, STATUS_FULL = 1, 2, 3, 4, 5
HEALTH_GOOD = 2


@dataclass(frozen=True)
class HealthInfo:
    """BatteryService's mHealthInfo: the fields `dumpsys battery` prints."""

    ac: bool = True
    usb: bool = False
    wireless: bool = False
    dock: bool = False
    status: int = STATUS_CHARGING
    health: int = HEALTH_GOOD
    present: bool = True
    level: int = 100
    counter: int = 10000
    voltage: int = 5000
    temperature: int = 250
    technology: str = "Li-ion"


class Battery:
    def __init__(self) -> None:
        self.hardware = HealthInfo()
        self.overrides: HealthInfo | None = None  # set while updates are stopped
        self.invalid_charger = 0

    @property
    def info(self) -> HealthInfo:
        return self.overrides if self.overrides is not None else self.hardware

    @property
    def updates_stopped(self) -> bool:
        return self.overrides is not None

    def set_hardware(self, info: HealthInfo) -> None:
        """The emulated hardware changed (setBattery): the system sees it unless updates are stopped."""
        self.hardware = info

    def override(self, **fields: object) -> None:
        """`dumpsys battery set KEY VALUE` / `unplug`: copy the HAL's values once, then override."""
        self.overrides = replace(self.info, **fields)  # type: ignore[arg-type]

    def reset(self) -> None:
        self.overrides = None

    def dump(self) -> str:
        """BatteryService.dumpInternal."""
        info = self.info
        lines = ["Current Battery Service state:"]
        if self.updates_stopped:
            lines.append("  (UPDATES STOPPED -- use 'reset' to restart)")
        lines += [f"  AC powered: {_bool(info.ac)}", f"  USB powered: {_bool(info.usb)}",
                  f"  Wireless powered: {_bool(info.wireless)}", f"  Dock powered: {_bool(info.dock)}",
                  "  Max charging current: 0", "  Max charging voltage: 0", f"  Charge counter: {info.counter}",
                  f"  status: {info.status}", f"  health: {info.health}", f"  present: {_bool(info.present)}",
                  f"  level: {info.level}", "  scale: 100", f"  voltage: {info.voltage}",
                  f"  temperature: {info.temperature}", f"  technology: {info.technology}"]
        return "\n".join(lines) + "\n"


def _bool(value: bool) -> str:
    return "true" if value else "false"
