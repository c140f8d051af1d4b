"""The AVD's hardware as getStatus reports it, and the frame sizes to ask the controller for."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pytest_mobile_agent.errors import ControllerError

WIDTH_KEY = "hw.lcd.width"
HEIGHT_KEY = "hw.lcd.height"
DENSITY_KEY = "hw.lcd.density"
KEYBOARD_KEY = "hw.keyboard"

_TRUE = {"true", "yes", "1", "on"}


@dataclass(frozen=True)
class Hardware:
    """Display size in physical pixels, density in dpi, and whether the AVD declares a keyboard."""

    width: int
    height: int
    density: int = 0
    keyboard: bool = False
    config: Mapping[str, str] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_status(cls, status: Any) -> Hardware:
        """From an EmulatorStatus message: platformConfig's keys first, else the deprecated
        hardwareConfig, which is where the emulators spike S7 measured put the display size."""
        hardware = {entry.key: entry.value for entry in status.hardwareConfig.entry}
        return cls.from_config(hardware, dict(status.platformConfig))

    @classmethod
    def from_config(cls, hardware: Mapping[str, str], platform: Mapping[str, str] | None = None) -> Hardware:
        merged = {**hardware, **{k: v for k, v in (platform or {}).items() if v.strip()}}
        width = _int(merged, WIDTH_KEY)
        height = _int(merged, HEIGHT_KEY)
        if width is None or height is None or width <= 0 or height <= 0:
            raise ControllerError(
                f"the controller's getStatus names no display size ({WIDTH_KEY}={merged.get(WIDTH_KEY)!r}, "
                f"{HEIGHT_KEY}={merged.get(HEIGHT_KEY)!r} in platformConfig or hardwareConfig)"
            )
        return cls(
            width=width,
            height=height,
            density=_int(merged, DENSITY_KEY) or 0,
            keyboard=parse_bool(merged.get(KEYBOARD_KEY, "")),
            config=merged,
        )

    @property
    def keys_supported(self) -> bool:
        """The controller's sendKey drops keys unless the AVD declares a keyboard."""
        return self.keyboard

    def scaled_size(self, width: int) -> tuple[int, int]:
        """Both dimensions for a frame `width` pixels wide, the height following the display's
        aspect ratio and rounded up (540 on 1080x2400 -> 540x1200).

        The emulator ignores a request with one dimension 0 (full resolution) and fits the other
        requests inside width x height keeping the aspect ratio, in doubles truncated to ints, so
        the height is rounded up to make the width the side that binds.
        """
        if width <= 0 or width >= self.width:
            return (0, 0)
        return (width, -(-width * self.height // self.width))

    def requested_size(self, width: int | None = None) -> tuple[int, int]:
        """What to put in ImageFormat.width/height: zeros (the display size) without scaling."""
        return (0, 0) if width is None else self.scaled_size(width)


def parse_bool(value: str) -> bool:
    """gRPC reports booleans as "true"/"false"; config.ini spells them yes/no. Unknown is False."""
    return value.strip().lower() in _TRUE


def _int(config: Mapping[str, str], key: str) -> int | None:
    value = config.get(key, "").strip()
    return int(value) if value.isdigit() and value.isascii() else None
