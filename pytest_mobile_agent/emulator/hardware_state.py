"""The emulated hardware a test sets through the controller: the battery, the GPS fix, the
fingerprint sensor and a foldable's posture, as plain values (the proto's messages stay in here and
in controller.py).

The names follow emulator 37.1.11's emulator_controller.proto: BatteryState (charger NONE, AC, USB,
WIRELESS; status UNKNOWN, CHARGING, DISCHARGING, NOT_CHARGING, FULL; health GOOD ... OVERHEATED),
GpsState, and Posture's values, which follow the emulator's android/hw-sensors.h.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from pytest_mobile_agent.emulator._proto import emulator_controller_pb2 as pb

Charger = Literal["none", "ac", "usb", "wireless"]
BatteryStatus = Literal["unknown", "charging", "discharging", "not_charging", "full"]
PostureName = Literal["closed", "half_opened", "opened", "flipped", "tent"]

CHARGERS: tuple[Charger, ...] = ("none", "ac", "usb", "wireless")
STATUSES: tuple[BatteryStatus, ...] = ("unknown", "charging", "discharging", "not_charging", "full")
HEALTHS = ("good", "failed", "dead", "overvoltage", "overheated")
POSTURES: dict[PostureName, int] = {"closed": 1, "half_opened": 2, "opened": 3, "flipped": 4, "tent": 5}


@dataclass(frozen=True)
class EmulatedBattery:
    """What getBattery reports and setBattery takes."""

    level: int
    charger: Charger = "ac"
    status: BatteryStatus = "charging"
    health: str = "good"
    present: bool = True
    has_battery: bool = True

    def message(self) -> Any:
        enum: Any = int  # the generated stubs type enum fields as their wrappers; the wire takes the number
        return pb.BatteryState(hasBattery=self.has_battery, isPresent=self.present,
                               charger=enum(CHARGERS.index(self.charger)), chargeLevel=self.level,
                               health=enum(HEALTHS.index(self.health)), status=enum(STATUSES.index(self.status)))

    @classmethod
    def of(cls, message: Any) -> EmulatedBattery:
        return cls(level=int(message.chargeLevel), charger=_name(CHARGERS, message.charger, "none"),
                   status=_name(STATUSES, message.status, "unknown"), health=_name(HEALTHS, message.health, "good"),
                   present=bool(message.isPresent), has_battery=bool(message.hasBattery))


@dataclass(frozen=True)
class GpsFix:
    """What getGps reports and setGps takes: degrees, metres, metres per second."""

    latitude: float
    longitude: float
    altitude: float = 0.0
    speed: float = 0.0
    bearing: float = 0.0
    satellites: int = 0

    def message(self) -> Any:
        # passiveUpdate false: the location UI must not override the fix at 1 Hz (the proto's comment)
        return pb.GpsState(passiveUpdate=False, latitude=self.latitude, longitude=self.longitude,
                           altitude=self.altitude, speed=self.speed, bearing=self.bearing, satellites=self.satellites)

    @classmethod
    def of(cls, message: Any) -> GpsFix:
        return cls(float(message.latitude), float(message.longitude), float(message.altitude), float(message.speed),
                   float(message.bearing), int(message.satellites))


def posture_message(name: PostureName | None) -> Any:
    """The Posture of a name; None is POSTURE_UNKNOWN (a phone's, which has no hinge)."""
    value: Any = POSTURES[name] if name is not None else 0
    return pb.Posture(value=value)


def posture_name(value: int) -> PostureName | None:
    """The posture of a Posture value (getPhysicalModel's POSTURE); None for unknown (0)."""
    return next((name for name, number in POSTURES.items() if number == value), None)


def _name(names: tuple[Any, ...], value: int, default: Any) -> Any:
    return names[value] if 0 <= value < len(names) else default
