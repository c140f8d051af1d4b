"""The device under the test's control (issue 26), on the target `--android-serial` names.

`--android-serial virtual` runs them on the virtual device through the built-in adb endpoint,
`--virtual-adb real` through Debian's adb server. Each capability with two paths runs on both: the
emulator's (the controller, the double on a virtual device; its console, which a virtual lab serves) and the
device's (the shell), the latter made by giving the control no controller and no console, as on a
phone. Every test ends by restoring the control and reading the state back as it was.

On a real target the checks that need the virtual device's model (a device policy that refuses, a
PIN lock) are skipped with the reason.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_mobile_agent import errors
from pytest_mobile_agent.adb import Device
from pytest_mobile_agent.agent import Attached
from pytest_mobile_agent.control import DeviceControl, Paths
from pytest_mobile_agent.emulator.console import Console
from pytest_mobile_agent.mirror import Mirror
from pytest_mobile_agent.plugin.fixtures import AndroidTarget, steps_of
from pytest_mobile_agent.session import Selection
from pytest_mobile_agent.stack.control import console_access

pytestmark = pytest.mark.device

PARIS = (48.8566, 2.3522)


def _lab_device(target: AndroidTarget) -> Any:
    if target.lab is None:
        pytest.skip("needs the virtual device's model (--android-serial virtual)")
    return target.lab.device(target.serial)


@pytest.fixture(params=["emulator", "device"])
def either_path(request: pytest.FixtureRequest, android_target: AndroidTarget, device: Device, agent: Attached,
                path_selection: Selection, screen: Mirror) -> Iterator[DeviceControl]:
    """A control on the emulator's path (controller and console) and one on the device's (shell)."""
    if request.param == "emulator":
        if path_selection.controller is None:
            pytest.skip("the target has no emulator controller here (a device, or --emulator-controller off)")
        paths = Paths(device, emulator=True, controller=path_selection.controller,
                      console=console_access(android_target, path_selection), agent=agent.connection, screen=screen)
    else:
        paths = Paths(device, emulator=False, agent=agent.connection, screen=screen)
    control = DeviceControl(paths, steps_of(request))
    yield control
    control.restore()


# --- rotation and the screen ---------------------------------------------------------------------------


def test_rotation_is_set_frozen_read_back_and_the_users_setting_restored(device_control: DeviceControl) -> None:
    adb = device_control.adb
    before = (adb.shell("settings get system accelerometer_rotation").text(),
              adb.shell("settings get system user_rotation").text())
    start = device_control.orientation
    for orientation in ("landscape", "reverse_portrait", "reverse_landscape", "portrait"):
        device_control.rotate(orientation)  # type: ignore[arg-type]
        assert device_control.orientation == orientation
        assert adb.shell("settings get system accelerometer_rotation").text().strip() == "0", "frozen"
    device_control.rotate("landscape")
    device_control.restore()
    assert device_control.orientation == start
    assert (adb.shell("settings get system accelerometer_rotation").text(),
            adb.shell("settings get system user_rotation").text()) == before


def test_an_unknown_orientation_names_the_argument(device_control: DeviceControl) -> None:
    with pytest.raises(errors.InvalidArgument, match="orientation must be one of portrait, landscape"):
        device_control.rotate("sideways")  # type: ignore[arg-type]


def test_the_screen_goes_off_locks_and_unlocks_and_is_on_again_after_the_test(device_control: DeviceControl) -> None:
    assert device_control.awake and not device_control.locked
    device_control.screen_off()
    assert not device_control.awake
    assert device_control.locked, "the lock screen shows once the screen went off"
    device_control.screen_on()
    assert device_control.awake and device_control.locked
    device_control.unlock()
    assert not device_control.locked
    device_control.screen_off()
    device_control.restore()
    assert device_control.awake and not device_control.locked


def test_a_pin_lock_is_refused_with_the_advice(device_control: DeviceControl, android_target: AndroidTarget) -> None:
    model = _lab_device(android_target)
    model.state.power.secure_lock = True
    try:
        device_control.screen_off()
        with pytest.raises(errors.StateRefused, match="mKeyguardShowing=true") as refused:
            device_control.unlock()
        assert "PIN, pattern or password" in str(refused.value)
    finally:
        model.state.power.secure_lock = False
    device_control.restore()
    assert device_control.awake and not device_control.locked


# --- links and activities ------------------------------------------------------------------------------


def test_open_url_names_the_activity_and_the_browser_it_started_is_stopped_after(device_control: DeviceControl) -> None:
    component = device_control.open_url("https://example.com/path?q=1")
    assert component == "com.android.chrome/com.google.android.apps.chrome.Main"
    assert device_control.wait_for_activity("com.google.android.apps.chrome.Main", timeout=5) == component
    assert device_control.resumed_activity == component
    device_control.restore()
    assert not device_control.adb.shell("pidof com.android.chrome").text().strip()


@pytest.mark.parametrize(("url", "tab"), [("fixture://tab/List", "screen_list"),
                                          ("https://fixture.example/tab/Big", "screen_big")])
def test_the_fixture_apps_deep_links_open_its_tab(device_control: DeviceControl, screen: Mirror,
                                                  android_target: AndroidTarget, url: str, tab: str) -> None:
    """Issue 41 item 12: its custom scheme and its verified https App Link, both routed to the tab."""
    _lab_device(android_target)
    component = device_control.open_url(url)
    assert component == "dev.mobileagent.fixture/dev.mobileagent.fixture.MainActivity"
    assert screen.wait_for(id=tab, timeout=5).visible
    device_control.restore()
    assert not device_control.adb.shell("pidof dev.mobileagent.fixture").text().strip(), "started cold, so stopped"


@pytest.mark.parametrize("url", ["example.com", "", "https://exa mple.com"])
def test_a_url_without_a_scheme_names_the_argument(device_control: DeviceControl, url: str) -> None:
    with pytest.raises(errors.InvalidArgument, match="url must be an absolute URL"):
        device_control.open_url(url)


def test_a_url_nothing_handles_names_the_argument_and_the_devices_words(device_control: DeviceControl) -> None:
    with pytest.raises(errors.InvalidArgument, match=r"url 'nohandler://x': no activity on .* handles it: "
                                                    r"Error: Activity not started, unable to resolve Intent"):
        device_control.open_url("nohandler://x")


def test_the_app_goes_to_the_background_comes_back_and_its_activity_is_waited_for(compose_fixture: Any) -> None:
    app = compose_fixture(tab="Login")
    main = "dev.mobileagent.fixture/dev.mobileagent.fixture.MainActivity"
    assert app.wait_for_activity(".MainActivity", timeout=5) == main
    app.to_background()
    with pytest.raises(errors.Timeout, match="in front: com.google.android.apps.nexuslauncher"):
        app.wait_for_activity("MainActivity", timeout=0.3)
    app.to_foreground()
    assert app.wait_for_activity("MainActivity", timeout=5).endswith(".MainActivity")


def test_app_open_url_of_a_url_its_app_does_not_handle_names_the_argument(compose_fixture: Any) -> None:
    app = compose_fixture(tab="Login")
    with pytest.raises(errors.InvalidArgument, match=r"no activity on .* in dev\.mobileagent\.fixture handles it"):
        app.open_url("https://example.com")


# --- the clipboard and the notifications ----------------------------------------------------------------


def test_the_clipboard_is_set_and_read_through_the_agent_without_an_overlay_and_put_back(
        device_control: DeviceControl, screen: Mirror) -> None:
    before = device_control.clipboard
    device_control.set_clipboard("héllo 👋")
    assert device_control.clipboard == "héllo 👋"
    assert not screen.exists(id="com.android.systemui:id/clipboard_ui"), "no clipboard overlay"
    device_control.clear_clipboard()
    assert device_control.clipboard is None
    device_control.restore()
    assert device_control.clipboard == before


def test_set_clipboard_of_none_is_an_invalid_argument_naming_clear_clipboard(device_control: DeviceControl) -> None:
    """None used to be taken (and clear the clipboard): a test that passed a variable left unset
    emptied the clipboard and passed."""
    device_control.set_clipboard("kept")
    with pytest.raises(errors.InvalidArgument, match=r"not None: device_control.clear_clipboard\(\)"):
        device_control.set_clipboard(None)  # type: ignore[arg-type]
    assert device_control.clipboard == "kept"


def test_a_long_press_on_a_field_offers_paste_and_paste_pastes_the_clipboard(
        device_control: DeviceControl, screen: Mirror, compose_fixture: Any) -> None:
    """Issue 41 item 13: on the virtual device a long press on a field showed no Paste menu."""
    compose_fixture(tab="Login")
    device_control.set_clipboard("ada")
    screen.long_press(id="username")
    screen.tap(text="Paste", timeout=5)
    assert screen.wait_for(id="username", text="ada", timeout=5).text == "ada"
    assert not screen.exists(text="Paste")


def test_a_notification_is_found_in_the_shade_as_the_screen_sees_it_and_the_shade_closes_after(
        device_control: DeviceControl, screen: Mirror) -> None:
    device_control.adb.shell(["cmd", "notification", "post", "-t", "Sign-in code", "mobile-agent-it",
                              "Your code is 4711"])
    try:
        row = device_control.find_notification("code is 4711")
        assert row.text == "Your code is 4711"
        assert screen.exists(text="Sign-in code")
        device_control.close_notifications()
        screen.wait_gone(text="Your code is 4711", timeout=5)
        device_control.open_notifications()
        screen.wait_for(text="Your code is 4711", timeout=5)
        device_control.restore()
        screen.wait_gone(text="Your code is 4711", timeout=5)
    finally:
        device_control.adb.shell("cmd statusbar collapse")


# --- location ----------------------------------------------------------------------------------------


def test_the_location_is_set_read_back_and_put_back_on_either_path(either_path: DeviceControl) -> None:
    before = either_path.location
    either_path.set_location(*PARIS)
    now = either_path.location
    assert now is not None and (round(now.latitude, 4), round(now.longitude, 4)) == PARIS
    either_path.set_location(-33.8688, 151.2093)
    either_path.restore()
    assert either_path.location == before


@pytest.mark.parametrize(("latitude", "longitude", "named"), [(90.5, 0.0, "latitude"), (0.0, -181.0, "longitude"),
                                                              (float("nan"), 0.0, "latitude")])
def test_coordinates_out_of_range_name_the_argument(either_path: DeviceControl, latitude: float, longitude: float,
                                                    named: str) -> None:
    with pytest.raises(errors.InvalidArgument, match=named):
        either_path.set_location(latitude, longitude)


def test_a_device_refusing_mock_locations_says_why_and_leaves_nothing_half_set(
        device_control: DeviceControl, android_target: AndroidTarget, agent: Attached, screen: Mirror,
        request: pytest.FixtureRequest) -> None:
    model = _lab_device(android_target)
    shell = DeviceControl(Paths(device_control.adb, emulator=False, agent=agent.connection, screen=screen),
                          steps_of(request))
    adb = device_control.adb
    adb.shell("cmd location set-location-enabled false")
    model.state.policy.restrictions.add("no_config_location")  # the admin keeps the mock location app
    try:
        with pytest.raises(errors.StateRefused, match="not allowed to perform MOCK_LOCATION") as refused:
            shell.set_location(*PARIS)
        assert "appops set com.android.shell android:mock_location allow" in str(refused.value)
    finally:
        model.state.policy.restrictions.discard("no_config_location")
    assert adb.shell("cmd location is-location-enabled").text().strip() == "false", "the switch went back off"
    assert "No operations." in adb.shell("appops get com.android.shell android:mock_location").text()
    assert shell.journal.keys == []
    adb.shell("cmd location set-location-enabled true")


# --- battery ----------------------------------------------------------------------------------------------


def test_the_battery_level_and_charging_are_set_read_back_and_restored_on_either_path(
        either_path: DeviceControl) -> None:
    before = either_path.battery
    either_path.set_battery(level=15, charging=False)
    assert (either_path.battery.level, either_path.battery.charging, either_path.battery.plugged) == (15, False, None)
    either_path.set_battery(charging=True)
    assert (either_path.battery.level, either_path.battery.charging) == (15, True)
    either_path.restore()
    assert either_path.battery == before


@pytest.mark.parametrize("level", [101, -1, 50.5, True])
def test_a_battery_level_out_of_range_names_the_argument(device_control: DeviceControl, level: Any) -> None:
    with pytest.raises(errors.InvalidArgument, match="level must be a whole percentage"):
        device_control.set_battery(level=level)


# --- network ----------------------------------------------------------------------------------------------


def test_airplane_mode_wifi_and_data_switch_and_come_back(device_control: DeviceControl) -> None:
    before = device_control.network
    device_control.set_airplane_mode(True)
    assert device_control.network.airplane and not device_control.network.wifi
    device_control.set_airplane_mode(False)
    device_control.set_network(wifi=False, data=False)
    assert (device_control.network.wifi, device_control.network.data) == (False, False)
    device_control.restore()
    assert device_control.network == before


def test_a_refused_switch_puts_back_the_ones_already_made(device_control: DeviceControl,
                                                         android_target: AndroidTarget) -> None:
    model = _lab_device(android_target)
    before = device_control.network
    model.state.policy.restrictions.add("no_change_wifi_state")
    try:
        with pytest.raises(errors.StateRefused, match="turning Wi-Fi off: the device still reports it on") as refused:
            device_control.set_network(data=False, wifi=False)
        assert "device policy" in str(refused.value)
    finally:
        model.state.policy.restrictions.discard("no_change_wifi_state")
    assert device_control.network == before, "mobile data, turned off first, is on again"
    assert device_control.journal.keys == []


def test_network_speed_and_delay_go_through_the_console_and_come_back(either_path: DeviceControl,
                                                                      android_target: AndroidTarget) -> None:
    if either_path.paths.controller is None:
        with pytest.raises(errors.NotSupported, match="not available on a device"):
            either_path.set_network_speed("edge")
        return
    console = either_path.paths.open_console("reading the network")
    try:
        before = console.network_status()
        either_path.set_network_speed("edge")
        either_path.set_network_delay("gprs")
        now = console.network_status()
        assert (now.upload_bps, now.download_bps, now.min_latency_ms, now.max_latency_ms) == (473600, 473600, 35, 200)
        with pytest.raises(errors.InvalidArgument, match="speed must be one of gsm"):
            either_path.set_network_speed("warp")
        either_path.restore()
        assert console.network_status() == before
    finally:
        console.close()


def test_the_network_speed_is_set_on_the_virtual_device_as_on_an_emulator(device_control: DeviceControl,
                                                                           android_target: AndroidTarget) -> None:
    """Issue 41 item 11: `--android-serial virtual` served no console, so the plain `device_control`
    refused `set_network_speed` with NotSupported while README's table says emulators take it."""
    if android_target.lab is None:
        pytest.skip("needs a virtual device (--android-serial virtual): a real one's console needs the user's token")
    link = _lab_device(android_target).state.link
    assert (link.upload_bps, link.download_bps) == (0, 0), "full speed (no limit) when the lab starts"
    device_control.set_network_speed("edge")
    assert (link.upload_bps, link.download_bps) == (473600, 473600)
    with device_control.paths.open_console("reading the network") as console:
        now = console.network_status()
    assert (now.upload_bps, now.download_bps) == (473600, 473600)
    device_control.restore()
    assert (link.upload_bps, link.download_bps) == (0, 0)


def test_a_virtual_labs_console_token_is_private_to_the_lab(android_target: AndroidTarget) -> None:
    """The console asks for a token, as an emulator's does, and keeps it where only this user reads
    it: the lab's own folder (0700), never the user's ~/.emulator_console_auth_token."""
    if android_target.lab is None:
        pytest.skip("needs a virtual device (--android-serial virtual)")
    lab = android_target.lab
    token = lab.console_token_path
    assert token.parent == lab.home and token.name == ".emulator_console_auth_token"
    assert token.read_text().strip(), "an empty token file turns the console's auth off"
    assert token.stat().st_mode & 0o777 == 0o600 and lab.home.stat().st_mode & 0o777 == 0o700
    port = lab.console_port(android_target.serial)
    assert port is not None
    with pytest.raises(errors.ControllerError, match="authentication token does not match"):
        Console.connect(port, token_path=_wrong_token(lab.home))


def _wrong_token(directory: Path) -> Path:
    path = directory / "wrong-token"
    path.write_text("not-the-token")
    return path


# --- the emulator's sensors -------------------------------------------------------------------------------


def test_fingerprint_and_posture_on_the_emulator_and_a_clear_refusal_on_a_device(
        either_path: DeviceControl, android_target: AndroidTarget) -> None:
    if either_path.paths.controller is None:
        with pytest.raises(errors.NotSupported, match="touching the fingerprint sensor is not available on a device"):
            either_path.touch_fingerprint()
        with pytest.raises(errors.NotSupported, match="setting the posture is not available on a device"):
            either_path.set_posture("half_opened")
        return
    before = either_path.posture
    either_path.touch_fingerprint(2)
    either_path.set_posture("half_opened")
    assert either_path.posture == "half_opened"
    with pytest.raises(errors.InvalidArgument, match="posture must be one of closed"):
        either_path.set_posture("folded")  # type: ignore[arg-type]
    if android_target.lab is not None:
        touches = android_target.lab.device(android_target.serial).state.sensors.fingerprint_touches
        assert touches[-2:] == [(2, True), (2, False)], "a touch, then the lift"
    either_path.restore()
    assert either_path.posture == before


# --- appearance -------------------------------------------------------------------------------------------


def test_dark_mode_and_font_scale_are_set_and_restored(device_control: DeviceControl) -> None:
    dark, scale = device_control.dark_mode, device_control.font_scale
    device_control.set_dark_mode(not dark)
    assert device_control.dark_mode is (not dark)
    device_control.set_font_scale(1.3)
    assert device_control.font_scale == 1.3
    device_control.restore()
    assert (device_control.dark_mode, device_control.font_scale) == (dark, scale)


@pytest.mark.parametrize("scale", [0, 5, float("inf"), "big"])
def test_a_font_scale_out_of_range_names_the_argument(device_control: DeviceControl, scale: Any) -> None:
    with pytest.raises(errors.InvalidArgument, match="scale must be a number from 0.5 to 2"):
        device_control.set_font_scale(scale)


def test_the_status_says_which_path_each_capability_takes(either_path: DeviceControl) -> None:
    (line,) = either_path.status()
    if either_path.paths.controller is not None:
        assert "battery and location through the emulator's controller" in line
        assert "network speed and delay through the emulator's console" in line
    else:
        assert "battery and location through the shell" in line
        assert "fingerprint and posture are not available on a device" in line
    assert "the clipboard through the agent" in line
