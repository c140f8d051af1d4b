"""`DeviceControl`: the device under the test's control (the `device_control` fixture, and each of
`devices` under `@pytest.mark.devices(N)`).

Every call is a step of the test's steps (mirror/steps.py), so the trace shows it; every change is
journalled, and `restore()` (the fixture's teardown, while the automation lock is still held) puts
it all back, the last change first, even when the test failed. Which path each capability takes on
this target is `status()` (control/means.py).
"""

from __future__ import annotations

from pytest_mobile_agent.adb import Device
from pytest_mobile_agent.control import activities
from pytest_mobile_agent.control.appearance import Appearance
from pytest_mobile_agent.control.battery import Battery, BatteryState
from pytest_mobile_agent.control.clipboard import Clipboard
from pytest_mobile_agent.control.hardware import Sensors
from pytest_mobile_agent.control.journal import Journal
from pytest_mobile_agent.control.location import Coordinates, Location
from pytest_mobile_agent.control.means import Paths
from pytest_mobile_agent.control.network import Network, NetworkState
from pytest_mobile_agent.control.notifications import Shade
from pytest_mobile_agent.control.rotation import Orientation, Rotation
from pytest_mobile_agent.control.screen import Screen
from pytest_mobile_agent.emulator.hardware_state import PostureName
from pytest_mobile_agent.errors import StateRefused, hide_our_frames
from pytest_mobile_agent.mirror import Mirror
from pytest_mobile_agent.mirror.element import Element
from pytest_mobile_agent.mirror.steps import Steps, recorded

__tracebackhide__ = hide_our_frames  # pytest reports our failures at the test's line, not in these frames


class DeviceControl:
    """Rotation, screen, links, clipboard, notifications, location, battery, network, fingerprint,
    posture and appearance of one target, each restored when the test ends."""

    def __init__(self, paths: Paths, steps: Steps | None = None) -> None:
        self.paths = paths
        self.steps = steps if steps is not None else Steps()
        self.journal = Journal()
        self._rotation = Rotation(paths, self.journal)
        self._screen = Screen(paths, self.journal)
        self._clipboard = Clipboard(paths, self.journal)
        self._shade = Shade(paths, self.journal)
        self._location = Location(paths, self.journal)
        self._battery = Battery(paths, self.journal)
        self._network = Network(paths, self.journal)
        self._sensors = Sensors(paths, self.journal)
        self._appearance = Appearance(paths, self.journal)

    def __repr__(self) -> str:
        return f"DeviceControl({self.serial!r})"

    @property
    def serial(self) -> str:
        return self.paths.serial

    @property
    def adb(self) -> Device:
        """The target as the adb client's Device (shell, push, install...)."""
        return self.paths.device

    @property
    def screen(self) -> Mirror | None:
        """The target's screen (the mirror), when this control was made with one."""
        return self.paths.screen

    def status(self) -> list[str]:
        """Which path each capability takes on this target."""
        return self.paths.describe()

    # --- rotation and the screen ------------------------------------------------------------------

    @property
    def orientation(self) -> Orientation:
        """The display's orientation now: portrait, landscape, reverse_portrait, reverse_landscape."""
        return self._rotation.current()

    @recorded("device.rotate")
    def rotate(self, orientation: Orientation) -> None:
        """Set the orientation and freeze it there (auto-rotate off); the user's rotation setting
        comes back at the end of the test."""
        self._rotation.set(orientation)

    @property
    def awake(self) -> bool:
        """Whether the screen is on."""
        return self._screen.on

    @property
    def locked(self) -> bool:
        """Whether the lock screen shows."""
        return self._screen.locked

    @recorded("device.screen_off")
    def screen_off(self) -> None:
        self._screen.turn_off()

    @recorded("device.screen_on")
    def screen_on(self) -> None:
        self._screen.turn_on()

    @recorded("device.unlock")
    def unlock(self) -> None:
        """Screen on, lock screen dismissed (none with a PIN, pattern or password: StateRefused)."""
        self._screen.unlock()

    # --- links and activities ---------------------------------------------------------------------

    @recorded("device.open_url")
    def open_url(self, url: str) -> str:
        """Open `url` as a VIEW intent; the activity that took it (`pkg/pkg.Class`)."""
        return activities.open_url(self.paths.device, self.journal, url)

    @property
    def resumed_activity(self) -> str | None:
        return activities.resumed_activity(self.paths.device)

    @recorded("device.wait_for_activity")
    def wait_for_activity(self, activity: str, timeout: float = 10.0) -> str:
        """Wait until `activity` (`pkg/.Class`, a class name) is in front; the component."""
        return activities.wait_for_activity(self.paths.device, activity, timeout, self.paths.between_checks)

    # --- clipboard and notifications --------------------------------------------------------------

    @property
    def clipboard(self) -> str | None:
        """The clipboard's text (None when empty), read through the agent."""
        return self._clipboard.text()

    @recorded("device.set_clipboard")
    def set_clipboard(self, text: str) -> None:
        """Put `text` on the clipboard, with no clipboard overlay (None is an InvalidArgument:
        `clear_clipboard()` empties it)."""
        self._clipboard.set(text)

    @recorded("device.clear_clipboard")
    def clear_clipboard(self) -> None:
        """Empty the clipboard."""
        self._clipboard.clear()

    @recorded("device.open_notifications")
    def open_notifications(self) -> None:
        self._shade.open()

    @recorded("device.close_notifications")
    def close_notifications(self) -> None:
        self._shade.close()

    @recorded("device.find_notification")
    def find_notification(self, text: str, timeout: float = 5.0) -> Element:
        """Open the shade and wait for the notification showing `text`; its element."""
        return self._shade.find(text, timeout)

    # --- location, battery, network ---------------------------------------------------------------

    @property
    def location(self) -> Coordinates | None:
        return self._location.current()

    @recorded("device.set_location")
    def set_location(self, latitude: float, longitude: float, altitude: float | None = None) -> None:
        self._location.set(latitude, longitude, altitude)

    @property
    def battery(self) -> BatteryState:
        return self._battery.current()

    @recorded("device.set_battery")
    def set_battery(self, level: int | None = None, charging: bool | None = None) -> None:
        self._battery.set(level, charging)

    @property
    def network(self) -> NetworkState:
        return self._network.current()

    @recorded("device.set_network")
    def set_network(self, *, airplane: bool | None = None, wifi: bool | None = None, data: bool | None = None) -> None:
        """Airplane mode, Wi-Fi, mobile data: one change (a refused switch puts back the others)."""
        self._network.set(airplane=airplane, wifi=wifi, data=data)

    @recorded("device.set_airplane_mode")
    def set_airplane_mode(self, on: bool) -> None:
        self._network.set(airplane=on)

    @recorded("device.set_wifi")
    def set_wifi(self, on: bool) -> None:
        self._network.set(wifi=on)

    @recorded("device.set_data")
    def set_data(self, on: bool) -> None:
        self._network.set(data=on)

    @recorded("device.set_network_speed")
    def set_network_speed(self, speed: str) -> None:
        """The emulator's network speed (gsm ... lte, evdo, 5g, full; kbit/s; UP:DOWN)."""
        self._network.set_speed(speed)

    @recorded("device.set_network_delay")
    def set_network_delay(self, delay: str) -> None:
        """The emulator's network latency (gsm ... umts, none; ms; MIN:MAX)."""
        self._network.set_delay(delay)

    # --- the emulator's sensors -------------------------------------------------------------------

    @recorded("device.touch_fingerprint")
    def touch_fingerprint(self, finger: int = 1) -> None:
        self._sensors.touch_fingerprint(finger)

    @property
    def posture(self) -> PostureName | None:
        return self._sensors.posture()

    @recorded("device.set_posture")
    def set_posture(self, posture: PostureName) -> None:
        self._sensors.set_posture(posture)

    # --- appearance ---------------------------------------------------------------------------------

    @property
    def dark_mode(self) -> bool:
        return self._appearance.night_mode() == "yes"

    @recorded("device.set_dark_mode")
    def set_dark_mode(self, on: bool) -> None:
        self._appearance.set_dark_mode(on)

    @property
    def font_scale(self) -> float:
        return self._appearance.font_scale()

    @recorded("device.set_font_scale")
    def set_font_scale(self, scale: float) -> None:
        self._appearance.set_font_scale(scale)

    # --- the end of the test ------------------------------------------------------------------------

    @recorded("device.restore")
    def restore(self) -> None:
        """Put back everything this control changed, the last change first; StateRefused naming
        what could not be put back (everything else is put back first)."""
        failures = self.journal.restore()
        if failures:
            raise StateRefused(f"{self.serial}: could not put back " + "; ".join(failures))
