"""The permission controller's grant dialog (GrantPermissionsActivity) for one app's runtime
permission request: whether it is answered without a prompt, which buttons the prompt shows, and
what the user's choice grants, kept in the package manager's state (`pm grant`/`pm revoke` and
`dumpsys package` see the same grants and flags).

After packages/modules/Permission, PermissionController (Android 13-16): GrantPermissionsViewModel
(onPermissionGrantResult, onPermissionGrantResultSingleState), the GrantBehavior classes
(BasicGrantBehavior.getDenyButton, BackgroundGrantBehavior.isPermissionFixed), PermissionMapping
(the groups, supportsOneTimeGrant) and KotlinUtils.grantRuntimePermissions/revokeRuntimePermissions:

* a request names a permission group; the prompt asks for the group's foreground permissions that
  the app's manifest requests (location's background permission is never asked with them: an app
  targeting Android 11+ must ask for it alone, later);
* already granted: answered "granted" with no prompt; fixed by the user (a denial not to ask
  again): answered "denied" with no prompt; nothing the app requested: "denied" with no prompt;
* the buttons: "While using the app", "Only this time" and "Don't allow" for the groups that allow
  a one-time grant (location, camera, microphone); "Allow" and "Don't allow" for the others
  (notifications); the deny button is "Don't allow" that does not ask again (USER_FIXED) once
  the user has answered for the group before (USER_SET);
* "While using the app" and "Allow" grant the foreground permissions (USER_SET); "Only this time"
  grants them for the app's process (USER_SET|ONE_TIME); "Don't allow" denies (USER_SET, or
  USER_SET|USER_FIXED the second time); BACK (GrantPermissionsActivity.onBackPressed: CANCELED)
  changes nothing and the app hears its current state.
"""

from __future__ import annotations

from dataclasses import dataclass

from pytest_mobile_agent.virtual.android.packages import USER_FIXED, USER_SET, PackageManager

#: what the app's onRequestPermissionsResult hears (PackageManager.PERMISSION_GRANTED / DENIED)
GRANTED, DENIED = "granted", "denied"

#: the user's choices, each a button of the prompt (CANCEL is BACK)
FOREGROUND = "foreground"  # "While using the app": GRANTED_FOREGROUND_ONLY
ALLOW = "allow"  # "Allow": GRANTED_ALWAYS, in a group without a background permission
ONE_TIME = "one_time"  # "Only this time": GRANTED_ONE_TIME
DENY = "deny"  # "Don't allow": DENIED
DENY_AND_DONT_ASK_AGAIN = "deny_and_dont_ask_again"  # "Don't allow", the second time: DENIED_DO_NOT_ASK_AGAIN
CANCEL = "cancel"  # BACK: CANCELED


@dataclass(frozen=True)
class PermissionGroup:
    foreground: tuple[str, ...]
    background: tuple[str, ...] = ()
    one_time: bool = False  # PermissionMapping.supportsOneTimeGrant


def _names(*names: str) -> tuple[str, ...]:
    return tuple(f"android.permission.{name}" for name in names)


#: the groups the fixture app asks for (`--es prompt camera`), named as its extra names them
GROUPS = {
    "camera": PermissionGroup(_names("CAMERA"), one_time=True),
    "microphone": PermissionGroup(_names("RECORD_AUDIO"), one_time=True),
    "location": PermissionGroup(_names("ACCESS_FINE_LOCATION", "ACCESS_COARSE_LOCATION"),
                                _names("ACCESS_BACKGROUND_LOCATION"), one_time=True),
    "notifications": PermissionGroup(_names("POST_NOTIFICATIONS")),
}


class GrantPermissions:
    """The grant dialog's decisions for the app `package`, over the package manager's state."""

    def __init__(self, packages: PackageManager, package: str) -> None:
        self.packages = packages
        self.package = package

    def answer_without_prompt(self, group: str) -> str | None:
        """GRANTED or DENIED when the request is answered at once; None when the prompt asks."""
        asked = self._asked(group)
        if not asked:
            return DENIED
        if all(self.packages.is_granted(self.package, p) for p in asked):
            return GRANTED
        if any(USER_FIXED in self.packages.permission_flags(self.package, p) for p in asked):
            return DENIED
        return None

    def choices(self, group: str) -> tuple[str, ...]:
        """The prompt's buttons, top to bottom."""
        kind = _group(group)
        allow = (FOREGROUND, ONE_TIME) if kind.one_time else (FOREGROUND,) if kind.background else (ALLOW,)
        user_set = any(USER_SET in self.packages.permission_flags(self.package, p) for p in self._asked(group))
        return (*allow, DENY_AND_DONT_ASK_AGAIN if user_set else DENY)

    def choose(self, group: str, choice: str) -> str:
        """Record the user's choice; what the app hears."""
        asked = self._asked(group)
        if choice in (FOREGROUND, ALLOW, ONE_TIME):
            self.packages.set_by_user(self.package, asked, granted=True, one_time=choice == ONE_TIME)
            return GRANTED
        if choice in (DENY, DENY_AND_DONT_ASK_AGAIN):
            self.packages.set_by_user(self.package, asked, granted=False, fixed=choice == DENY_AND_DONT_ASK_AGAIN)
            return DENIED
        if choice == CANCEL:
            granted = bool(asked) and all(self.packages.is_granted(self.package, p) for p in asked)
            return GRANTED if granted else DENIED
        raise ValueError(f"choice: {choice!r} is not a button of the permission prompt")

    def _asked(self, group: str) -> tuple[str, ...]:
        """The group's foreground permissions the app's manifest requests."""
        package = self.packages.packages.get(self.package)
        requested = package.manifest.permissions if package is not None else ()
        return tuple(p for p in _group(group).foreground if p in requested)


def _group(name: str) -> PermissionGroup:
    return GROUPS.get(name, PermissionGroup(()))
