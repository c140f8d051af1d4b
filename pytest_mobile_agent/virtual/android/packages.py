"""The virtual device's package manager: installed packages, read from their APKs' manifests.

What it models, after AOSP's PackageManagerShellCommand (frameworks/base,
services/core/java/com/android/server/pm/PackageManagerShellCommand.java) and the install
session's checks:

* `install(apk_bytes, grant_all=False, allow_downgrade=False)` parses the APK (`apk.read_apk`).
  Refusals carry the package manager's code and text as `InstallError`, printed by `pm install`
  as `Failure [CODE: message]`: a zip that is no APK `INSTALL_PARSE_FAILED_NOT_APK: Failed to
  parse <tmp>/base.apk: Failed to load asset path <tmp>/base.apk`; a bad manifest
  `INSTALL_PARSE_FAILED_BAD_MANIFEST`; no signature at all `INSTALL_PARSE_FAILED_NO_CERTIFICATES`
  (the signature is not verified: a known difference, see docs/architecture.md); a lower
  versionCode than the installed one without -d `INSTALL_FAILED_VERSION_DOWNGRADE: Downgrade
  detected: Update version code 1 is older than current 2`; a minSdkVersion above the device's
  `INSTALL_FAILED_OLDER_SDK: Requires newer sdk version #37 (current version is #36)`.
  `-r` is implied (an install replaces, keeping the granted permissions and the data).
* The APK lands at `/data/app/~~<random>==/<package>-<random>==/base.apk` (a new directory on
  every install), readable by the shell user, so `pm path`, `sha256sum` and a pull see it.
* An installed package with a UI of its own (the Compose fixture app, `provide_ui`) gets that UI;
  any other gets the app `show_others_with` makes of its manifest (the UI model's plain window
  naming its label, `ui/plain.py`; a headless app until a UI is attached).
* Each installed package has its data directory, `/data/data/<package>` (drwx------ of the app's
  uid, with the empty `cache` and `code_cache` installd's prepareAppDataContents makes); the
  shell user cannot look in. An update keeps it; `uninstall` removes it.
* `clear` is `pm clear` (ActivityManagerService.clearApplicationUserData, then
  PackageManagerService.clearApplicationUserDataLIF): the app's process is killed, its data
  directory emptied to that fresh state, and its runtime permissions reset (ungranted, with no
  user choice left): what the app held in memory or stored is gone.
* `grant`/`revoke` of runtime permissions, refused as the platform refuses them (`PermissionError`);
  they leave the permission's flags as they are, as the shell's grant does.
* The flags of a runtime permission (`dumpsys package` prints them in PackageManager's bit order):
  USER_SET and USER_FIXED (the user's choice in the permission prompt, and a denial not to ask
  again) and ONE_TIME ("Only this time"), set by the permission controller (`set_by_user`,
  virtual/android/permissions.py). A one-time grant ends with the app's process: the session
  PermissionManager.startOneTimePermissionSession opens ends when the app is killed (after a short
  delay on a device; here at once) or has been out of the foreground for a while (not modelled), and
  PermissionControllerServiceImpl.onOneTimePermissionSessionTimeout revokes the permission and
  clears its USER_SET, keeping ONE_TIME.
"""

from __future__ import annotations

import base64
import contextlib
import os
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from pytest_mobile_agent import apk as apk_format
from pytest_mobile_agent.errors import InvalidApk
from pytest_mobile_agent.virtual.android.activity import ActivityManager, App
from pytest_mobile_agent.virtual.android.intents import LinkHandler
from pytest_mobile_agent.virtual.android.logcat import Logcat
from pytest_mobile_agent.virtual.kernel.creds import ROOT
from pytest_mobile_agent.virtual.kernel.fs import FileSystem

SYSTEM_UID = 1000
#: the permission flags the virtual device sets, in PackageManager.FLAG_PERMISSION_*'s bit order
USER_SET, USER_FIXED, ONE_TIME = "USER_SET", "USER_FIXED", "ONE_TIME"
PERMISSION_FLAGS = (USER_SET, USER_FIXED, ONE_TIME)

#: dangerous (runtime) permissions: frameworks/base core/res/AndroidManifest.xml, protectionLevel
#: "dangerous"; the others cannot be granted with `pm grant`
RUNTIME_PERMISSIONS = frozenset(f"android.permission.{name}" for name in (
    "CAMERA", "RECORD_AUDIO", "ACCESS_FINE_LOCATION", "ACCESS_COARSE_LOCATION", "ACCESS_BACKGROUND_LOCATION",
    "READ_CONTACTS", "WRITE_CONTACTS", "GET_ACCOUNTS", "READ_CALENDAR", "WRITE_CALENDAR", "READ_PHONE_STATE",
    "READ_PHONE_NUMBERS", "CALL_PHONE", "READ_CALL_LOG", "WRITE_CALL_LOG", "SEND_SMS", "RECEIVE_SMS", "READ_SMS",
    "BODY_SENSORS", "ACTIVITY_RECOGNITION", "POST_NOTIFICATIONS", "READ_MEDIA_IMAGES", "READ_MEDIA_VIDEO",
    "READ_MEDIA_AUDIO", "READ_EXTERNAL_STORAGE", "WRITE_EXTERNAL_STORAGE", "NEARBY_WIFI_DEVICES",
    "BLUETOOTH_CONNECT", "BLUETOOTH_SCAN", "BLUETOOTH_ADVERTISE", "UWB_RANGING",
))


class InstallError(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


@dataclass
class Package:
    manifest: apk_format.Manifest
    code_path: str
    sha256: str
    size: int
    first_install: float
    last_update: float
    uid: int
    granted: set[str] = field(default_factory=set)
    #: permission -> its flags (USER_SET, USER_FIXED, ONE_TIME)
    flags: dict[str, set[str]] = field(default_factory=dict)
    #: the App Link hosts the platform verified for the package (`pm get-app-links`: `verified`)
    verified_hosts: set[str] = field(default_factory=set)

    @property
    def app_link_hosts(self) -> set[str]:
        """The https hosts of its `android:autoVerify` filters: what domain verification checks."""
        return {host.lower() for activity in self.manifest.activities for link in activity.links
                if link.auto_verify and link.web for host in link.hosts}

    @property
    def name(self) -> str:
        return self.manifest.package

    @property
    def apk_path(self) -> str:
        return f"{self.code_path}/base.apk"

    @property
    def data_dir(self) -> str:
        return f"/data/data/{self.name}"


def _random_segment() -> str:
    return base64.urlsafe_b64encode(os.urandom(16)).decode().rstrip("=") + "=="


class HeadlessApp:
    """An installed app no UI shows (before a UI model is attached): its activities start and stop
    and nothing is drawn."""

    def __init__(self, manifest: apk_format.Manifest) -> None:
        self.manifest = manifest
        self.package = manifest.package

    def has_activity(self, activity: str) -> bool:
        return self.manifest.activity(activity) in {a.name for a in self.manifest.activities}

    def start(self, activity: str, extras: dict[str, str]) -> None:
        return None

    def stop(self) -> None:
        return None


AppFactory = Callable[[apk_format.Manifest], App]


class PackageManager:
    def __init__(self, fs: FileSystem, properties: dict[str, str], activity: ActivityManager, logcat: Logcat) -> None:
        self.fs = fs
        self.properties = properties
        self.activity = activity
        self.logcat = logcat
        self.packages: dict[str, Package] = {}
        self._ui_apps: dict[str, App] = {}  # package -> the activity manager's App its own UI shows
        self._other_apps: AppFactory = HeadlessApp
        self._next_uid = 10150
        self._sessions = 1_000_000
        activity.add_listener(self._activity_changed)

    # --- what the UI model can show ------------------------------------------------------------------

    def provide_ui(self, app: App) -> None:
        """The UI model can show `app.package`: an install of that package gets this app."""
        self._ui_apps[app.package] = app

    def show_others_with(self, factory: AppFactory) -> None:
        """How an installed package without a UI of its own is shown (the UI model's plain window)."""
        self._other_apps = factory

    # --- install ---------------------------------------------------------------------------------------

    def install(self, data: bytes, *, grant_all: bool = False, allow_downgrade: bool = False) -> Package:
        self._sessions += 1
        staged = f"/data/app/vmdl{self._sessions}.tmp/base.apk"
        try:
            parsed = apk_format.read_apk(data)
        except InvalidApk as exc:
            manifest_problem = "manifest" in str(exc) or "AndroidManifest" in str(exc)
            if manifest_problem and "no AndroidManifest" not in str(exc):
                raise InstallError("INSTALL_PARSE_FAILED_BAD_MANIFEST", f"Failed to parse {staged}: {exc}") from None
            raise InstallError("INSTALL_PARSE_FAILED_NOT_APK",
                               f"Failed to parse {staged}: Failed to load asset path {staged}") from None
        manifest = parsed.manifest
        if not parsed.signed:
            raise InstallError("INSTALL_PARSE_FAILED_NO_CERTIFICATES",
                               "Scanning Failed.: No signature found in package of version 2 or newer for package "
                               f"{manifest.package}")
        sdk = int(self.properties.get("ro.build.version.sdk", "36") or 36)
        if manifest.min_sdk > sdk:
            raise InstallError("INSTALL_FAILED_OLDER_SDK",
                               f"Requires newer sdk version #{manifest.min_sdk} (current version is #{sdk})")
        existing = self.packages.get(manifest.package)
        if existing is not None and manifest.version_code < existing.manifest.version_code and not allow_downgrade:
            raise InstallError("INSTALL_FAILED_VERSION_DOWNGRADE",
                               f"Downgrade detected: Update version code {manifest.version_code} is older than "
                               f"current {existing.manifest.version_code}")
        return self._commit(manifest, data, parsed.sha256, existing, grant_all)

    def _commit(self, manifest: apk_format.Manifest, data: bytes, sha256: str, existing: Package | None,
                grant_all: bool) -> Package:
        now = time.time()
        if existing is not None:
            self.activity.force_stop(manifest.package)  # an update kills the running app
            self._remove_code(existing)
        code_path = f"/data/app/~~{_random_segment()}/{manifest.package}-{_random_segment()}"
        self._write_apk(code_path, data)
        uid = existing.uid if existing is not None else self._allocate_uid()
        granted = set(existing.granted) if existing is not None else set()
        if grant_all:
            granted |= {p for p in manifest.permissions if p in RUNTIME_PERMISSIONS}
        package = Package(manifest, code_path, sha256, len(data), existing.first_install if existing else now, now,
                          uid, granted & set(manifest.permissions), dict(existing.flags) if existing else {})
        if existing is not None:  # an update keeps the verification of the hosts it still declares
            package.verified_hosts = existing.verified_hosts & package.app_link_hosts
        self.packages[manifest.package] = package
        if existing is None:
            self._prepare_data(package)
        self.activity.install(self._app_for(package))
        self.logcat.log("PackageManager", f"{'Updated' if existing else 'Installed'} package {manifest.package} "
                        f"versionCode={manifest.version_code}")
        return package

    def _app_for(self, package: Package) -> App:
        ui_app = self._ui_apps.get(package.name)
        if ui_app is not None:
            return ui_app
        return self._other_apps(package.manifest)

    def _allocate_uid(self) -> int:
        self._next_uid += 1
        return self._next_uid

    def _write_apk(self, code_path: str, data: bytes) -> None:
        """The modes an installed app has: `~~X==` drwxrwx--x, `pkg-Y==` drwxr-xr-x, base.apk
        -rw-r--r--, all system:system, so the shell user can read the APK but not list /data/app."""
        fs = self.fs
        fs.mkdir_system(code_path.rsplit("/", 1)[0], 0o771, SYSTEM_UID, SYSTEM_UID)
        fs.mkdir_system(code_path, 0o755, SYSTEM_UID, SYSTEM_UID)
        fs.add_file(f"{code_path}/base.apk", data, 0o644, SYSTEM_UID, SYSTEM_UID)

    def _prepare_data(self, package: Package) -> None:
        """A fresh, empty data directory (replacing whatever was there), as installd makes it."""
        self.fs.mkdir_system(package.data_dir, 0o700, package.uid, package.uid)
        for sub in ("cache", "code_cache"):
            self.fs.mkdir_system(f"{package.data_dir}/{sub}", 0o771, package.uid, package.uid)

    def _remove_code(self, package: Package) -> None:
        fs = self.fs
        with contextlib.suppress(OSError):
            fs.unlink(package.apk_path, ROOT)
            fs.rmdir(package.code_path, ROOT)
            fs.rmdir(package.code_path.rsplit("/", 1)[0], ROOT)

    # --- links ------------------------------------------------------------------------------------------

    def verify_app_links(self, name: str) -> set[str]:
        """Mark the package's App Link hosts verified, as DomainVerificationService records a
        verifier's success (or `pm set-app-links --package PKG STATE_APPROVED all`); the hosts."""
        package = self.packages[name]
        package.verified_hosts = set(package.app_link_hosts)
        return package.verified_hosts

    def link_handlers(self) -> list[LinkHandler]:
        """The installed packages as VIEW resolution sees them (android/intents.py)."""
        return [LinkHandler(p.manifest, frozenset(p.verified_hosts)) for p in self.packages.values()]

    # --- the rest of pm ---------------------------------------------------------------------------------

    def uninstall(self, name: str) -> bool:
        package = self.packages.pop(name, None)
        if package is None:
            return False
        self.activity.uninstall(name)
        self._remove_code(package)
        self.fs.remove_system(package.data_dir)
        self.logcat.log("PackageManager", f"Removed package {name}")
        return True

    def clear(self, name: str) -> bool:
        """`pm clear`: the app's process is killed, its data directory emptied and its runtime
        permissions reset (see the module's docstring)."""
        package = self.packages.get(name)
        if package is None:
            return False
        # ActivityManagerService.forceStopPackageLocked's line, with clearApplicationUserData's reason
        self.logcat.log("ActivityManager", f"Force stopping {name} appid={package.uid} user=0: clear data")
        self.activity.force_stop(name)
        self._prepare_data(package)
        package.granted.clear()  # PermissionManagerService.resetRuntimePermissions: no grant, no user choice
        package.flags.clear()
        return True

    def is_granted(self, name: str, permission: str) -> bool:
        package = self.packages.get(name)
        return package is not None and permission in package.granted

    def permission_flags(self, name: str, permission: str) -> tuple[str, ...]:
        """The permission's flags, in PackageManager's bit order."""
        package = self.packages.get(name)
        held = package.flags.get(permission, set()) if package is not None else set()
        return tuple(flag for flag in PERMISSION_FLAGS if flag in held)

    def set_by_user(self, name: str, permissions: Iterable[str], *, granted: bool, one_time: bool = False,
                    fixed: bool = False) -> None:
        """The user's answer in the permission prompt, as the permission controller records it
        (KotlinUtils.grantRuntimePermissions / revokeRuntimePermissions): granted or not, USER_SET,
        USER_FIXED for a denial not to ask again, ONE_TIME for "Only this time"."""
        package = self.packages[name]
        for permission in permissions:
            (package.granted.add if granted else package.granted.discard)(permission)
            flags = package.flags.setdefault(permission, set())
            flags.add(USER_SET)
            _toggle(flags, USER_FIXED, fixed)
            _toggle(flags, ONE_TIME, one_time)

    def _activity_changed(self, event: str, what: str) -> None:
        if event == "stop":
            self._end_one_time_grants(what)

    def _end_one_time_grants(self, name: str) -> None:
        """The app's process ended: its one-time grants end (see the module's docstring)."""
        package = self.packages.get(name)
        if package is None:
            return
        for permission, flags in package.flags.items():
            if ONE_TIME in flags and permission in package.granted:
                package.granted.discard(permission)
                flags.discard(USER_SET)

    def grant(self, name: str, permission: str, *, grant: bool = True) -> None:
        """PermissionError with the platform's exception line when it refuses (PermissionManagerService)."""
        package = self.packages.get(name)
        if package is None:
            raise PermissionError(f"java.lang.IllegalArgumentException: Unknown package: {name}")
        if permission not in package.manifest.permissions:
            raise PermissionError(f"java.lang.SecurityException: Package {name} has not requested permission "
                                  f"{permission}")
        if permission not in RUNTIME_PERMISSIONS:
            raise PermissionError(f"java.lang.SecurityException: Permission {permission} requested by {name} is not a "
                                  "changeable permission type")
        if grant:
            package.granted.add(permission)
        else:
            package.granted.discard(permission)


def _toggle(flags: set[str], flag: str, on: bool) -> None:
    if on:
        flags.add(flag)
    else:
        flags.discard(flag)
