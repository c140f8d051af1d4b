"""The radios of the virtual device: airplane mode, Wi-Fi and mobile data.

Airplane mode is the global setting `airplane_mode_on`, which ConnectivityService.setAirplaneMode
writes (`cmd connectivity airplane-mode enable|disable`) before broadcasting ACTION_AIRPLANE_MODE_CHANGED;
the radios go off with it and Wi-Fi comes back after it when it was on before (WifiController's
airplane handling). Wi-Fi is the user's toggle (`svc wifi enable|disable`, `cmd wifi set-wifi-enabled`,
the global setting `wifi_on`), mobile data the global `mobile_data` (`svc data enable|disable`,
TelephonyManager.setDataEnabled). A device policy's user restriction leaves the state as it is
(android/policy.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from pytest_mobile_agent.virtual.android.policy import (
    NO_AIRPLANE_MODE,
    NO_CHANGE_WIFI_STATE,
    NO_CONFIG_MOBILE_NETWORKS,
    DevicePolicy,
)

AIRPLANE_MODE_ON = "airplane_mode_on"
WIFI_ON = "wifi_on"
MOBILE_DATA = "mobile_data"


@dataclass
class Radios:
    policy: DevicePolicy
    settings: dict[str, str]  # the global namespace
    wifi_before_airplane: bool = True
    #: called after a radio changed (SystemUI's status bar icons follow them)
    listeners: list[Callable[[], None]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.settings.setdefault(AIRPLANE_MODE_ON, "0")
        self.settings.setdefault(WIFI_ON, "1")
        self.settings.setdefault(MOBILE_DATA, "1")

    @property
    def airplane(self) -> bool:
        return self.settings.get(AIRPLANE_MODE_ON) == "1"

    @property
    def wifi(self) -> bool:
        return self.settings.get(WIFI_ON) == "1"

    @property
    def data(self) -> bool:
        return self.settings.get(MOBILE_DATA) == "1"

    def set_airplane(self, on: bool) -> None:
        if self.policy.forbids(NO_AIRPLANE_MODE) or on == self.airplane:
            return
        if on:
            self.wifi_before_airplane = self.wifi
            self.settings[WIFI_ON] = "0"
        else:
            self.settings[WIFI_ON] = "1" if self.wifi_before_airplane else "0"
        self.settings[AIRPLANE_MODE_ON] = "1" if on else "0"
        self.changed()

    def set_wifi(self, on: bool) -> None:
        if not self.policy.forbids(NO_CHANGE_WIFI_STATE):
            self.settings[WIFI_ON] = "1" if on else "0"
            self.changed()

    def set_data(self, on: bool) -> None:
        if not self.policy.forbids(NO_CONFIG_MOBILE_NETWORKS):
            self.settings[MOBILE_DATA] = "1" if on else "0"
            self.changed()

    def changed(self) -> None:
        """Tell the listeners (also after `settings put global airplane_mode_on|wifi_on|mobile_data`)."""
        for listener in list(self.listeners):
            listener()

    @property
    def data_connected(self) -> bool:
        return self.data and not self.airplane
