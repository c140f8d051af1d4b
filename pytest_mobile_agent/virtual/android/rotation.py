"""The display's rotation as the window manager keeps it: the user's setting, in the system
settings `accelerometer_rotation` (1: auto-rotate) and `user_rotation` (0..3, quarter turns).

DisplayRotation (frameworks/base services/core/java/com/android/server/wm/DisplayRotation.java)
observes both settings: with auto-rotate off the display is frozen at `user_rotation`; with it on it
follows the sensor (the virtual device lies in its natural orientation, 0). freezeRotation and
thawRotation (`wm user-rotation lock N` / `free`) write the same settings (setUserRotation). The
emulator's default is auto-rotate off at 0.
"""

from __future__ import annotations

from pytest_mobile_agent.virtual.android.display import Display

ACCELEROMETER_ROTATION = "accelerometer_rotation"
USER_ROTATION = "user_rotation"
ROTATION_RANGE_ERROR = "Rotation argument must be -1 or a valid rotation constant."  # WindowManagerService


class Rotation:
    def __init__(self, display: Display, system_settings: dict[str, str]) -> None:
        self.display = display
        self.settings = system_settings
        self.settings.setdefault(ACCELEROMETER_ROTATION, "0")
        self.settings.setdefault(USER_ROTATION, str(display.rotation))

    def settings_changed(self, key: str) -> None:
        if key in (ACCELEROMETER_ROTATION, USER_ROTATION):
            self.apply()

    def apply(self) -> None:
        """The display follows the settings (DisplayRotation's SettingsObserver)."""
        if self.settings.get(ACCELEROMETER_ROTATION, "0") == "1":
            if self.display.rotation_frozen or self.display.rotation != 0:
                self.display.thaw_rotation()
            return
        user = _quarter_turns(self.settings.get(USER_ROTATION, "0"))
        if not self.display.rotation_frozen or self.display.rotation != user:
            self.display.freeze_rotation(user)

    def lock(self, rotation: int) -> None:
        """freezeRotation: -1 keeps the current rotation; ValueError out of range."""
        if not -1 <= rotation <= 3:
            raise ValueError(ROTATION_RANGE_ERROR)
        value = self.display.rotation if rotation == -1 else rotation
        self.settings[USER_ROTATION] = str(value)
        self.settings[ACCELEROMETER_ROTATION] = "0"
        self.apply()

    def free(self) -> None:
        self.settings[ACCELEROMETER_ROTATION] = "1"
        self.apply()

    def sync_settings(self) -> None:
        """The settings as the display is now (UiAutomation's restore freezes or thaws the display
        itself, as the window manager writes the settings then)."""
        self.settings[ACCELEROMETER_ROTATION] = "0" if self.display.rotation_frozen else "1"
        if self.display.rotation_frozen:
            self.settings[USER_ROTATION] = str(self.display.rotation)

    def describe(self) -> str:
        """`wm user-rotation` with no lock mode (WindowManagerShellCommand.printDisplayUserRotation)."""
        self.sync_settings()
        if not self.display.rotation_frozen:
            return "free"
        return f"lock {self.display.rotation}"


def _quarter_turns(value: str) -> int:
    try:
        return int(value) % 4
    except ValueError:
        return 0
