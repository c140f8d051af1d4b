"""The permission prompt's buttons grant and deny as Android's PermissionController does
(GrantPermissionsViewModel, packages/modules/Permission, Android 13-16), in the package manager's
state that `pm grant`, `pm revoke` and `dumpsys package` see."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from pytest_mobile_agent.virtual.device import VirtualDevice
from pytest_mobile_agent.virtual.ui import PACKAGE
from tests.support.ui_nodes import by_res, tap

RID = "com.android.permissioncontroller:id/"
WHILE_USING = "permission_allow_foreground_only_button"
ONE_TIME = "permission_allow_one_time_button"
ALLOW = "permission_allow_button"
DENY = "permission_deny_button"
DENY_AGAIN = "permission_deny_and_dont_ask_again_button"


@pytest.fixture
def vdev() -> Iterator[VirtualDevice]:
    dev = VirtualDevice("emulator-5576")
    yield dev
    dev.close()


def request(vdev: VirtualDevice, group: str) -> None:
    """The fixture app starts afresh and asks for the group's permissions (Activity.requestPermissions)."""
    status, _, err = vdev.shell(f"am start -W -S -n {PACKAGE}/.MainActivity --es prompt {group}")
    assert status == 0, err


def buttons(vdev: VirtualDevice) -> list[str]:
    prompt = vdev.ui.permission_prompt
    if prompt is None:
        return []
    return [n.res.removeprefix(RID) for n in prompt.nodes() if n.res and n.cls.endswith("Button")]


def press(vdev: VirtualDevice, button: str) -> None:
    prompt = vdev.ui.permission_prompt
    assert prompt is not None, "no prompt"
    tap(vdev.ui, by_res(prompt, RID + button))


def state(vdev: VirtualDevice, permission: str) -> str:
    """`granted=... flags=[...]` of the permission in `dumpsys package`."""
    _, out, _ = vdev.shell(f"dumpsys package {PACKAGE}")
    match = re.search(rf"android\.permission\.{permission}: (granted=\w+)(?:, flags=\[ ?([A-Z_|]*)\])?",
                      out.decode())
    assert match is not None, permission
    return f"{match[1]} [{match[2] or ''}]".strip()


def heard(vdev: VirtualDevice, group: str) -> str | None:
    return vdev.ui.app.permission_results.get(group)


def answered_at_once(vdev: VirtualDevice, group: str) -> str | None:
    """The app asks again after a restart: what it hears with no prompt shown (None: a prompt shows)."""
    request(vdev, group)
    return heard(vdev, group) if vdev.ui.permission_prompt is None else None


def test_while_using_the_app_grants_the_camera_and_the_prompt_does_not_come_back(vdev: VirtualDevice) -> None:
    request(vdev, "camera")
    assert buttons(vdev) == [WHILE_USING, ONE_TIME, DENY]
    press(vdev, WHILE_USING)
    assert (heard(vdev, "camera"), vdev.ui.permission_prompt) == ("granted", None)
    assert state(vdev, "CAMERA") == "granted=true [USER_SET]"
    assert answered_at_once(vdev, "camera") == "granted"


def test_location_while_using_the_app_grants_the_foreground_permissions_only(vdev: VirtualDevice) -> None:
    request(vdev, "location")
    press(vdev, WHILE_USING)
    assert state(vdev, "ACCESS_FINE_LOCATION") == "granted=true [USER_SET]"
    assert state(vdev, "ACCESS_COARSE_LOCATION") == "granted=true [USER_SET]"
    assert state(vdev, "ACCESS_BACKGROUND_LOCATION").startswith("granted=false")


def test_only_this_time_grants_until_the_process_ends(vdev: VirtualDevice) -> None:
    request(vdev, "microphone")
    press(vdev, ONE_TIME)
    assert heard(vdev, "microphone") == "granted"
    assert state(vdev, "RECORD_AUDIO") == "granted=true [USER_SET|ONE_TIME]"
    vdev.shell(f"am force-stop {PACKAGE}")
    assert state(vdev, "RECORD_AUDIO") == "granted=false [ONE_TIME]"  # USER_SET cleared, ONE_TIME kept
    request(vdev, "microphone")
    assert buttons(vdev) == [WHILE_USING, ONE_TIME, DENY]


def test_notifications_offer_allow_and_dont_allow(vdev: VirtualDevice) -> None:
    request(vdev, "notifications")
    assert buttons(vdev) == [ALLOW, DENY]
    press(vdev, ALLOW)
    assert state(vdev, "POST_NOTIFICATIONS") == "granted=true [USER_SET]"


def test_a_second_denial_fixes_the_denial_and_the_request_is_answered_at_once(vdev: VirtualDevice) -> None:
    request(vdev, "camera")
    press(vdev, DENY)
    assert heard(vdev, "camera") == "denied"
    assert state(vdev, "CAMERA") == "granted=false [USER_SET]"
    request(vdev, "camera")
    assert buttons(vdev) == [WHILE_USING, ONE_TIME, DENY_AGAIN], "the group is user-set: deny and don't ask again"
    press(vdev, DENY_AGAIN)
    assert state(vdev, "CAMERA") == "granted=false [USER_SET|USER_FIXED]"
    assert answered_at_once(vdev, "camera") == "denied"


def test_back_on_the_prompt_denies_without_counting(vdev: VirtualDevice) -> None:
    """GrantPermissionsActivity.onBackPressed reports CANCELED: nothing changes, the app hears denied."""
    request(vdev, "camera")
    vdev.shell("input keyevent KEYCODE_BACK")
    vdev.ui.advance()
    assert (heard(vdev, "camera"), vdev.ui.permission_prompt) == ("denied", None)
    assert state(vdev, "CAMERA") == "granted=false []"
    request(vdev, "camera")
    assert buttons(vdev) == [WHILE_USING, ONE_TIME, DENY]


def test_pm_clear_forgets_a_fixed_denial(vdev: VirtualDevice) -> None:
    for button in (DENY, DENY_AGAIN):
        request(vdev, "camera")
        press(vdev, button)
    vdev.shell(f"pm clear {PACKAGE}")
    assert state(vdev, "CAMERA") == "granted=false []"
    request(vdev, "camera")
    assert buttons(vdev) == [WHILE_USING, ONE_TIME, DENY]


def test_pm_grant_and_revoke_keep_the_users_choice_flags(vdev: VirtualDevice) -> None:
    request(vdev, "camera")
    press(vdev, DENY)
    vdev.shell(f"pm grant {PACKAGE} android.permission.CAMERA")
    assert state(vdev, "CAMERA") == "granted=true [USER_SET]"
    assert answered_at_once(vdev, "camera") == "granted"
