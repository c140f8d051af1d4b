"""The device's location.

On the emulator, the emulated GPS: setGps, read back with getGps (the guest samples it about once a
second), the fix the test found set again at the end. On a device, a test provider for `gps`
(LocationShellCommand, Android 12+): the location switch on (`cmd location set-location-enabled
true`), the shell's MOCK_LOCATION app op allowed (`appops set com.android.shell
android:mock_location allow`, which AppOpsManager requires of a test provider), `cmd location
providers add-test-provider gps`, `set-test-provider-enabled gps true`, `set-test-provider-location
gps --location LAT,LNG`; read back from `dumpsys location` (the gps provider's `last
location=Location[gps LAT,LNG ...]`). At the end the provider is removed and the app op and the
switch put back. A device that refuses a step (its words: "SecurityException: ... not allowed to
perform MOCK_LOCATION") is left as it was before the call.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pytest_mobile_agent.arguments import check_number
from pytest_mobile_agent.control import shell
from pytest_mobile_agent.control.journal import Journal
from pytest_mobile_agent.control.means import Paths
from pytest_mobile_agent.emulator.hardware_state import GpsFix
from pytest_mobile_agent.errors import InvalidArgument, StateRefused

PROVIDER = "gps"
MOCK_LOCATION_ADVICE = ("Allow mock locations for the shell (`adb shell appops set com.android.shell "
                        "android:mock_location allow`, or Developer options > Select mock location app); a managed "
                        "device's policy may forbid it")
_LAST_LOCATION = re.compile(r"^\s*gps provider:\n(?:\s+.*\n)*?\s+last location=Location\[gps (-?[\d.]+),(-?[\d.]+)",
                            re.MULTILINE)
_OP_MODE = re.compile(r"MOCK_LOCATION: (\w+)")
CLOSE_ENOUGH = 1e-5  # degrees: dumpsys prints six decimals


@dataclass(frozen=True)
class Coordinates:
    latitude: float
    longitude: float


def check_coordinates(latitude: object, longitude: object, altitude: object) -> tuple[float, float, float | None]:
    lat = check_number("latitude", latitude)
    lng = check_number("longitude", longitude)
    if not -90.0 <= lat <= 90.0:
        raise InvalidArgument(f"latitude must be between -90 and 90 degrees, got {latitude!r}")
    if not -180.0 <= lng <= 180.0:
        raise InvalidArgument(f"longitude must be between -180 and 180 degrees, got {longitude!r}")
    return lat, lng, None if altitude is None else check_number("altitude", altitude)


class Location:
    def __init__(self, paths: Paths, journal: Journal) -> None:
        self.paths = paths
        self.journal = journal
        self._provider_ready = False

    def current(self) -> Coordinates | None:
        if self.paths.controller is not None:
            fix = self.paths.controller.gps()
            return Coordinates(fix.latitude, fix.longitude)
        found = _LAST_LOCATION.search(shell.text(self.paths.device, "dumpsys location"))
        return Coordinates(float(found.group(1)), float(found.group(2))) if found else None

    def set(self, latitude: float, longitude: float, altitude: float | None = None) -> None:
        lat, lng, alt = check_coordinates(latitude, longitude, altitude)
        if self.paths.controller is not None:
            self._set_gps(lat, lng, alt)
        else:
            self._set_test_provider(lat, lng)
        now = shell.settle(self.current, lambda c: c is not None and _near(c, lat, lng),
                           between=self.paths.between_checks)
        if now is None or not _near(now, lat, lng):
            raise StateRefused(f"setting the location to {lat},{lng}: the device reports {now or 'no location'}",
                               advice=MOCK_LOCATION_ADVICE if self.paths.controller is None else None)

    def _set_gps(self, lat: float, lng: float, alt: float | None) -> None:
        controller = self.paths.controller
        assert controller is not None
        if not self.journal.knows("location"):
            before = controller.gps()
            self.journal.remember("location", lambda: controller.set_gps(before))
        controller.set_gps(GpsFix(lat, lng, alt or 0.0, satellites=9))

    def _set_test_provider(self, lat: float, lng: float) -> None:
        device = self.paths.device
        with self.journal.change():
            if not self._provider_ready:
                self._location_switch_on()
                self._allow_mock_location()
                shell.run(device, f"cmd location providers add-test-provider {PROVIDER}",
                          what="adding a test location provider", advice=MOCK_LOCATION_ADVICE)
                self.journal.remember("location test provider", self._remove_provider)
                shell.run(device, f"cmd location providers set-test-provider-enabled {PROVIDER} true",
                          what="enabling the test location provider", advice=MOCK_LOCATION_ADVICE)
            shell.run(device, f"cmd location providers set-test-provider-location {PROVIDER} --location {lat},{lng}",
                      what="setting the location", advice=MOCK_LOCATION_ADVICE)
        self._provider_ready = True

    def _remove_provider(self) -> None:
        self._provider_ready = False
        shell.run(self.paths.device, f"cmd location providers remove-test-provider {PROVIDER}",
                  what="removing the test location provider")

    def _location_switch_on(self) -> None:
        device = self.paths.device
        if shell.text(device, "cmd location is-location-enabled").strip() == "false":
            self.journal.remember("location switch", lambda: shell.run(
                device, "cmd location set-location-enabled false", what="turning location off again"))
            shell.run(device, "cmd location set-location-enabled true", what="turning location on")

    def _allow_mock_location(self) -> None:
        device = self.paths.device
        found = _OP_MODE.search(shell.text(device, "appops get com.android.shell android:mock_location"))
        mode = found.group(1) if found else "default"
        if mode == "allow":
            return
        self.journal.remember("mock location app op", lambda: shell.run(
            device, f"appops set com.android.shell android:mock_location {mode}",
            what="putting back the shell's mock location app op"))
        shell.run(device, "appops set com.android.shell android:mock_location allow",
                  what="allowing the shell's mock locations", advice=MOCK_LOCATION_ADVICE)


def _near(coordinates: Coordinates, lat: float, lng: float) -> bool:
    return abs(coordinates.latitude - lat) <= CLOSE_ENOUGH and abs(coordinates.longitude - lng) <= CLOSE_ENOUGH
