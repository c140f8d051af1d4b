"""The screen an app's tests need (issue 25), on the full stack through the plugin's fixtures:
actions that wait, watchers, toasts and XPath, on whatever target `--android-serial` names (the
virtual device on both adb fronts in CI)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pytest_mobile_agent import App, Device, Screen
from pytest_mobile_agent.control import DeviceControl
from pytest_mobile_agent.errors import WaitTimeout
from pytest_mobile_agent.mirror.snapshots import SnapshotMismatch, SnapshotSettings
from pytest_mobile_agent.mirror.watchers import Watcher

pytestmark = pytest.mark.device

FIXTURE = "dev.mobileagent.fixture"


def test_a_button_that_appears_300_ms_after_a_tab_switch_is_tapped_with_no_explicit_wait(
        compose_fixture: Callable[..., App], screen: Screen) -> None:
    """The fixture app's Login tab shows "Continue as guest" 300 ms after a tap on its tab (as an app
    shows what a request made on the switch brought); on main the tap failed with NoMatch at once."""
    compose_fixture(tab="Big")
    screen.wait_for(id="big_header")
    screen.tap(id="tab_login")
    ack = screen.tap(text="Continue as guest")
    assert ack.accepted


def test_xpath_as_appium_inspector_writes_it_finds_waits_and_taps_on_the_big_tab(
        compose_fixture: Callable[..., App], screen: Screen) -> None:
    compose_fixture(tab="Big")
    cell = screen.wait_for(xpath="//android.widget.TextView[@text='Cell 42']")
    assert cell.text == "Cell 42" and len(screen.find_all(xpath="//*[starts-with(@text, 'Cell ')]")) == 500
    screen.tap(xpath="//android.widget.TextView[@text='Cell 42'][@clickable='true']")
    screen.wait_for(xpath="//*[@text='Cell 42' and @selected='true']", timeout=5)
    assert not screen.exists(xpath="//*[@text='Cell 43' and @selected='true']")


def test_a_watcher_dismisses_a_permission_prompt_that_appears_in_the_middle_of_a_test(
        device: Device, compose_fixture: Callable[..., App], screen: Screen) -> None:
    """PermissionController's prompt (GrantPermissionsActivity) comes up when the app asks for the
    camera; the built-in watcher answers "While using the app" before the test's next call looks,
    which grants the camera. `pm clear` first: the prompt shows only while the camera is neither
    granted nor denied for good."""
    device.clear(FIXTURE)
    try:
        compose_fixture(tab="Login")
        allow = screen.watch_builtin("allow_permissions")[0]
        screen.tap(text="Use camera")
        screen.find(id="username").type_text("ada")
        assert screen.wait_for(id="username", text="ada").text == "ada"
        assert allow.fired == 1
        assert not screen.exists(package="com.google.android.permissioncontroller")
        assert "android.permission.CAMERA: granted=true" in device.shell(["dumpsys", "package", FIXTURE]).text()
    finally:
        device.clear(FIXTURE)  # the camera's grant goes with the test


def test_a_permission_prompt_at_launch_is_answered_by_the_watcher_while_start_waits_for_the_app(
        device: Device, compose_fixture: Callable[..., App], screen: Screen) -> None:
    """The fixture app asks for the camera as it starts (`--es prompt camera`): PermissionController's
    prompt takes the front, and `start` waited 20 s for the app to come to the front with the
    watcher never given a look. Now the watchers look between start's checks."""
    device.clear(FIXTURE)
    try:
        allow = screen.watch_builtin("allow_permissions")[0]
        compose_fixture(tab="Login", extras={"prompt": "camera"}, timeout=8)
        assert allow.fired == 1
        assert screen.wait_for(id="username", timeout=5)
        assert "android.permission.CAMERA: granted=true" in device.shell(["dumpsys", "package", FIXTURE]).text()
    finally:
        device.clear(FIXTURE)  # the camera's grant goes with the test


def test_a_watcher_fixture_and_the_anr_dialog_dismissed_by_the_builtin(
        android_target: Any, compose_fixture: Callable[..., App], screen: Screen,
        watch: Callable[..., Watcher]) -> None:
    """system_server's AppNotRespondingDialog, provoked on the virtual device's model (its apps
    never hang); `dismiss_anr` taps Wait, and a watcher from the `watch` fixture saw the dialog too."""
    if not android_target.virtual:
        pytest.skip("provoking an ANR dialog needs the virtual device's model")
    from pytest_mobile_agent.virtual.ui.app_dialogs import show_app_not_responding

    compose_fixture(tab="Login")
    seen: list[str | None] = []
    watch(name="anr seen", text_contains="isn't responding").call(lambda element: seen.append(element.text))
    screen.watch_builtin("dismiss_anr")  # after it: watchers match in the order they were added
    ui = android_target.lab.device(android_target.serial).ui
    show_app_not_responding(ui, "dev.mobileagent.fixture", "Compose fixture")
    screen.wait_for(id="username", timeout=5)
    # it fires at each look that finds the dialog: once, or again when a look came before the tap landed
    assert seen and set(seen) == {"Compose fixture isn't responding"}
    assert not screen.exists(window="android")


def test_a_toast_the_app_shows_is_waited_for_and_listed(compose_fixture: Callable[..., App], screen: Screen) -> None:
    """The late button's tap shows a toast ("Continuing as guest"): the agent buffers its accessibility
    event, and the screen reads it back (docs/protocol.md `toasts`)."""
    compose_fixture(tab="Big")
    screen.tap(id="tab_login")
    screen.tap(text="Continue as guest")
    toast = screen.wait_for_toast(text="Continuing as guest", timeout=5)
    assert toast.package == "dev.mobileagent.fixture" and toast.class_name == "android.widget.Toast"
    assert [t.text for t in screen.toasts] == ["Continuing as guest"]


def test_the_access_toasts_of_a_paste_are_the_agents_not_the_apps(compose_fixture: Callable[..., App],
                                                                  screen: Screen) -> None:
    """Issue 37, item 2: a paste has ClipboardService show "<app> pasted from your clipboard" for the
    app's read of the pasted clip (and "Shell ..." for the agent's save of an app's clip), package
    `android` (API 33+ unless clipboard_show_access_notifications is off). They are the agent's:
    left out of screen.toasts and wait_for_toast, marked by_agent in all_toasts. NotificationManagerService
    shows one toast at a time, so on a device the app's toast can wait behind them: a longer timeout."""
    compose_fixture(tab="Big")
    screen.tap(id="tab_login")
    screen.find(id="username").type_text("ada", method="clipboard")
    screen.press_key("back")  # the keyboard goes, the button is in view again
    screen.tap(text="Continue as guest")
    assert screen.wait_for_toast(text="Continuing as guest", timeout=15).by_agent is False
    assert [t.text for t in screen.toasts] == ["Continuing as guest"]
    assert all(t.by_agent for t in screen.all_toasts if t.package == "android")


def test_a_restart_with_a_force_stop_signs_the_user_out(compose_fixture: Callable[..., App], screen: Screen) -> None:
    """The sign-in lives in the app's process: `am start -S` kills it, so each test starts signed out."""
    compose_fixture(tab="Login")
    screen.find(id="username").type_text("ada")
    screen.find(id="password").type_text("correct horse")
    screen.tap(id="login_button")
    screen.wait_for(id="alert_ok", timeout=5).tap()
    assert screen.wait_for(id="login_status", text="Signed in as ada", timeout=5)
    compose_fixture(tab="Login")
    assert screen.wait_for(id="login_status", timeout=5).text == "Signed out"


def test_after_a_turn_to_landscape_the_login_button_below_the_display_is_not_visible_and_not_tapped(
        compose_fixture: Callable[..., App], screen: Screen, device_control: DeviceControl) -> None:
    """The Login tab's button lies at y 1101-1248 once the display is 1080 high. It read visible=True
    and a tap on it was acked, signing nobody in; and for half a second after `rotate` the replica
    still answered the portrait layout."""
    compose_fixture(tab="Login")
    screen.find(id="username").type_text("ada")
    screen.find(id="password").type_text("correct horse")
    device_control.rotate("landscape")
    view = screen.snapshot()  # right after rotate: the turned screen, not the replica of before
    assert view.snapshot.display.rotation == 1 and view.snapshot.display.height == 1080
    button = screen.find(id="login_button")
    assert button.bounds[1] >= 1080 and button.visible is False
    with pytest.raises(WaitTimeout, match=r"it is outside the display: \[\d+,1101\]\[\d+,1248\] lies below the "
                                          r"bottom edge \(y 1080\)"):
        screen.tap(id="login_button", timeout=1)
    assert screen.find(id="login_status").text == "Signed out"


def test_a_baseline_of_the_empty_form_fails_once_text_is_typed_into_the_focused_field(
        compose_fixture: Callable[..., App], screen: Screen, tmp_path: Path) -> None:
    """The focused field was masked whole (for its caret), so the typed "ada" was never compared and
    the snapshot of the empty form passed."""
    compose_fixture(tab="Login")
    screen.tap(id="username")
    screen.wait_for(id="username", focused=True, timeout=5)
    screen.settle()
    screen.snapshot_settings = SnapshotSettings(directory=tmp_path, output=lambda: tmp_path, update=True)
    screen.assert_snapshot("form")
    screen.snapshot_settings = SnapshotSettings(directory=tmp_path, output=lambda: tmp_path)
    screen.assert_snapshot("form")  # the same screen matches
    screen.type_text("ada", id="username")
    screen.wait_for(id="username", text="ada", timeout=5)
    with pytest.raises(SnapshotMismatch, match="pixels differ"):
        screen.assert_snapshot("form")


def test_press_key_paste_pastes_the_clipboard_into_the_focused_field(
        compose_fixture: Callable[..., App], screen: Screen, device_control: DeviceControl) -> None:
    """`press_key("paste")` was an unknown key: KEYCODE_PASTE (279) is what a keyboard's paste sends."""
    compose_fixture(tab="Login")
    device_control.set_clipboard("ada")
    screen.tap(id="username")
    screen.wait_for(id="username", focused=True, timeout=5)
    assert screen.press_key("paste").accepted
    assert screen.wait_for(id="username", text="ada", timeout=5)
