"""The location service of the virtual device: the location switch, the GPS fix the emulated
hardware reports (the emulator's setGps, its `geo fix`), test providers, and the shell's
MOCK_LOCATION app op.

As LocationManagerService (frameworks/base services/core/java/com/android/server/location/, Android
12+) behaves for `cmd location` (LocationShellCommand): a test provider replaces the real provider
of its name until removed; adding one, enabling it or setting its location needs the caller's
MOCK_LOCATION app op allowed, and is refused with AppOpsManager's SecurityException
("<package> from uid <uid> not allowed to perform MOCK_LOCATION") otherwise. The shell's op is not
allowed until `appops set com.android.shell android:mock_location allow` (AppOpsManager's default
for MOCK_LOCATION is MODE_ERRORED).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pytest_mobile_agent.virtual.android.policy import NO_CONFIG_LOCATION, DevicePolicy

SHELL_PACKAGE = "com.android.shell"
SHELL_UID = 2000
MOCK_LOCATION = "MOCK_LOCATION"
OP_MODES = ("allow", "ignore", "deny", "default", "foreground")


class MockLocationRefused(Exception):  # noqa: N818 - the platform's SecurityException
    pass


@dataclass(frozen=True)
class Fix:
    latitude: float
    longitude: float
    altitude: float | None = None
    accuracy: float = 100.0
    mock: bool = False


@dataclass
class TestProvider:
    enabled: bool = False
    fix: Fix | None = None


@dataclass
class Location:
    policy: DevicePolicy
    enabled: bool = True
    #: the emulated GPS hardware's last fix (setGps); the emulator starts at the Googleplex
    hardware_fix: Fix = field(default_factory=lambda: Fix(37.422, -122.084, 5.0, 5.0))
    test_providers: dict[str, TestProvider] = field(default_factory=dict)
    #: app op modes set with `appops set`, (package, op) -> mode; absent is "default"
    app_ops: dict[tuple[str, str], str] = field(default_factory=dict)

    def op_mode(self, package: str, op: str) -> str:
        return self.app_ops.get((package, op), "default")

    def set_op(self, package: str, op: str, mode: str) -> None:
        if op == MOCK_LOCATION and self.policy.forbids(NO_CONFIG_LOCATION):
            return  # the admin's choice of mock location app stands
        if mode == "default":
            self.app_ops.pop((package, op), None)
        else:
            self.app_ops[(package, op)] = mode

    def check_mock(self) -> None:
        if self.op_mode(SHELL_PACKAGE, MOCK_LOCATION) != "allow":
            raise MockLocationRefused(f"java.lang.SecurityException: {SHELL_PACKAGE} from uid {SHELL_UID} "
                                      f"not allowed to perform {MOCK_LOCATION}")

    def set_enabled(self, enabled: bool) -> None:
        if not self.policy.forbids(NO_CONFIG_LOCATION):
            self.enabled = enabled

    def last_fix(self, provider: str) -> Fix | None:
        """What `dumpsys location` shows as the provider's last location: the test provider's while
        one of that name is there, else the hardware's (gps only)."""
        test = self.test_providers.get(provider)
        if test is not None:
            return test.fix if test.enabled else None
        return self.hardware_fix if provider == "gps" else None
