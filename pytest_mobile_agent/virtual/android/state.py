"""The device state a test changes, held by the framework of one virtual device: power and the
keyguard, the rotation setting, the battery, location, the radios, night mode, the notifications,
the device policy, and the emulated hardware (network link, fingerprint sensor, posture).

The programs (`cmd ...`, `dumpsys ...`, `svc`, `appops`, `settings`, `input keyevent`, `wm`) and
the emulator's controller and console change it; the UI draws the shade and the keyguard
(`attach_ui`). `settings_changed` is SettingsProvider's observer: the services that keep their
state in settings (the rotation) follow a `settings put`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pytest_mobile_agent.virtual.android.battery import Battery
from pytest_mobile_agent.virtual.android.connectivity import AIRPLANE_MODE_ON, MOBILE_DATA, WIFI_ON, Radios
from pytest_mobile_agent.virtual.android.display import Display
from pytest_mobile_agent.virtual.android.hardware import NetworkLink, Sensors
from pytest_mobile_agent.virtual.android.location import Location
from pytest_mobile_agent.virtual.android.notifications import Notifications
from pytest_mobile_agent.virtual.android.policy import DevicePolicy
from pytest_mobile_agent.virtual.android.power import Power
from pytest_mobile_agent.virtual.android.rotation import Rotation
from pytest_mobile_agent.virtual.android.uimode import UiMode


@dataclass
class DeviceState:
    settings: dict[str, dict[str, str]]
    display: Display
    policy: DevicePolicy = field(default_factory=DevicePolicy)
    power: Power = field(default_factory=Power)
    battery: Battery = field(default_factory=Battery)
    notifications: Notifications = field(default_factory=Notifications)
    link: NetworkLink = field(default_factory=NetworkLink)
    sensors: Sensors = field(default_factory=Sensors)

    def __post_init__(self) -> None:
        self.rotation = Rotation(self.display, self.settings["system"])
        self.location = Location(self.policy)
        self.radios = Radios(self.policy, self.settings["global"])
        self.uimode = UiMode(self.settings["secure"])

    def settings_changed(self, namespace: str, key: str) -> None:
        if namespace == "system":
            self.rotation.settings_changed(key)
        elif namespace == "global" and key in (AIRPLANE_MODE_ON, WIFI_ON, MOBILE_DATA):
            self.radios.changed()

    def before_settings_read(self) -> None:
        self.rotation.sync_settings()
