"""Night mode (dark theme) as UiModeManagerService keeps it: MODE_NIGHT_AUTO 0, NO 1, YES 2,
CUSTOM 3, in the secure setting `ui_night_mode` (frameworks/base services/core/java/com/android/
server/UiModeManagerService.java, Android 14). The emulator starts in MODE_NIGHT_NO.
"""

from __future__ import annotations

from dataclasses import dataclass

UI_NIGHT_MODE = "ui_night_mode"
NIGHT_MODES = {"auto": 0, "no": 1, "yes": 2, "custom": 3}


@dataclass
class UiMode:
    secure_settings: dict[str, str]

    def __post_init__(self) -> None:
        self.secure_settings.setdefault(UI_NIGHT_MODE, str(NIGHT_MODES["no"]))

    @property
    def night(self) -> str:
        value = self.secure_settings.get(UI_NIGHT_MODE, "1")
        return next((name for name, number in NIGHT_MODES.items() if str(number) == value), "no")

    def set_night(self, name: str) -> None:
        self.secure_settings[UI_NIGHT_MODE] = str(NIGHT_MODES[name])
