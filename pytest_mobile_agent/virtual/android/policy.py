"""The device policy of the virtual device: the user restrictions a device owner set, which make it
a locked-down (managed) device.

The names are UserManager's (frameworks/base core/java/android/os/UserManager.java):
`no_airplane_mode` (DISALLOW_AIRPLANE_MODE), `no_change_wifi_state` (DISALLOW_CHANGE_WIFI_STATE),
`no_config_mobile_networks` (DISALLOW_CONFIG_MOBILE_NETWORKS), `no_config_location`
(DISALLOW_CONFIG_LOCATION), `no_config_brightness`... A restricted change is ignored and the state
stays as it was, as SettingsProvider ignores a write a user restriction forbids
(SettingsProvider.isGlobalOrSecureSettingRestrictedForUser) and the Wi-Fi service refuses to toggle
under DISALLOW_CHANGE_WIFI_STATE; under `no_config_location` the shell's MOCK_LOCATION app op stays
as it is (a managed device keeps the mock location app its admin chose). Real services differ in
how they refuse, silently or with a log line: the driver reads every change back.
"""

from __future__ import annotations

from dataclasses import dataclass, field

NO_AIRPLANE_MODE = "no_airplane_mode"
NO_CHANGE_WIFI_STATE = "no_change_wifi_state"
NO_CONFIG_MOBILE_NETWORKS = "no_config_mobile_networks"
NO_CONFIG_LOCATION = "no_config_location"


@dataclass
class DevicePolicy:
    restrictions: set[str] = field(default_factory=set)

    def forbids(self, restriction: str) -> bool:
        return restriction in self.restrictions
