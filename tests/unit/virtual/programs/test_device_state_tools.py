"""The shell commands that change the device state, as AOSP's shell commands print and fail (their
sources are named in virtual/programs/devicestate.py and sensors.py, window.py, activity.py)."""

from __future__ import annotations

import pytest

from pytest_mobile_agent.virtual.device import VirtualDevice
from tests.support.virtual_shell import run_shell as run


def test_wm_user_rotation_locks_frees_and_reports_as_the_window_manager_does(vdev: VirtualDevice) -> None:
    assert run(vdev, "wm user-rotation") == (0, "lock 0\n", "")
    assert run(vdev, "wm user-rotation lock 1; wm user-rotation; settings get system user_rotation")[1] == "lock 1\n1\n"
    assert vdev.display.rotation == 1
    assert run(vdev, "wm user-rotation lock 0; wm user-rotation -d 0")[1] == "lock 0\n", "a rotation of 0 is one"
    assert run(vdev, "wm user-rotation free; wm user-rotation; settings get system accelerometer_rotation")[1] == \
        "free\n1\n"
    assert run(vdev, "wm user-rotation lock 7") == (255, "", "Error: Rotation argument must be -1 or a valid rotation "
                                                             "constant.\n")
    assert run(vdev, "wm user-rotation lock x") == (255, "", 'Error: For input string: "x"\n')
    assert run(vdev, "wm user-rotation sideways") == (255, "", "Error: argument needs to be either -d, free or lock.\n")


def test_the_rotation_settings_turn_the_display_as_the_window_manager_observes_them(vdev: VirtualDevice) -> None:
    run(vdev, "settings put system accelerometer_rotation 0; settings put system user_rotation 3")
    assert (vdev.display.rotation, vdev.display.rotation_frozen) == (3, True)
    run(vdev, "settings put --user 0 system accelerometer_rotation 1")
    assert (vdev.display.rotation, vdev.display.rotation_frozen) == (0, False)


def test_the_power_keys_and_the_keyguard(vdev: VirtualDevice) -> None:
    run(vdev, "input keyevent KEYCODE_SLEEP")
    power = run(vdev, "dumpsys power")[1]
    assert "  mWakefulness=Asleep" in power and "Display Power: state=OFF" in power
    assert "mKeyguardShowing=true" in run(vdev, "dumpsys window")[1]
    assert any(w.title == "NotificationShade" for w in vdev.ui.windows()), "the lock screen is drawn"
    run(vdev, "input keyevent 224; input keyevent 82")
    assert "mKeyguardShowing=false" in run(vdev, "dumpsys window")[1]
    run(vdev, "input keyevent 26")
    assert "mWakefulness=Asleep" in run(vdev, "dumpsys power")[1], "POWER toggles"
    vdev.state.power.secure_lock = True
    run(vdev, "input keyevent 26; wm dismiss-keyguard; input keyevent 82")
    assert "mKeyguardShowing=true" in run(vdev, "dumpsys window")[1], "a PIN lock stays"


def test_dumpsys_battery_set_unplug_reset_and_its_errors(vdev: VirtualDevice) -> None:
    assert "  level: 100\n" in run(vdev, "dumpsys battery")[1]
    run(vdev, "dumpsys battery set level 42; dumpsys battery unplug")
    dump = run(vdev, "dumpsys battery")[1]
    assert "  (UPDATES STOPPED -- use 'reset' to restart)\n  AC powered: false\n" in dump and "  level: 42\n" in dump
    assert "mPlugType=0" in run(vdev, "dumpsys power")[1]
    assert run(vdev, "dumpsys battery set level x") == (255, "Bad value: x\n", "")
    assert run(vdev, "dumpsys battery set") == (255, "No property specified\n", "")
    assert run(vdev, "dumpsys battery set level") == (255, "No value specified\n", "")
    assert run(vdev, "dumpsys battery set colour 3") == (0, "Unknown set option: colour\n", "")
    run(vdev, "dumpsys battery reset")
    assert run(vdev, "dumpsys battery get level") == (0, "100\n", "")


def test_a_test_provider_needs_the_mock_location_app_op(vdev: VirtualDevice) -> None:
    status, _, err = run(vdev, "cmd location providers add-test-provider gps")
    assert status == 255
    assert err.startswith("\nException occurred while executing 'providers':\njava.lang.SecurityException: "
                          "com.android.shell from uid 2000 not allowed to perform MOCK_LOCATION\n")
    assert run(vdev, "appops get com.android.shell android:mock_location") == (0, "No operations.\n", "")
    run(vdev, "appops set com.android.shell android:mock_location allow")
    assert run(vdev, "appops get com.android.shell MOCK_LOCATION") == (0, "MOCK_LOCATION: allow\n", "")
    assert run(vdev, "cmd location providers add-test-provider gps; "
                     "cmd location providers set-test-provider-enabled gps true; "
                     "cmd location providers set-test-provider-location gps --location 48.8566,2.3522")[0] == 0
    assert "last location=Location[gps 48.856600,2.352200 hAcc=100 et=+1s mock]" in run(vdev, "dumpsys location")[1]
    _, _, err = run(vdev, "cmd location providers set-test-provider-location gps --location 48.8")
    assert 'Location argument must be in the form of "<LATITUDE>,<LONGITUDE>", not [48.8]' in err
    run(vdev, "cmd location providers remove-test-provider gps")
    assert "gps provider is not a test provider" in run(vdev, "cmd location providers remove-test-provider gps")[2]
    assert "last location=Location[gps 37.422000,-122.084000" in run(vdev, "dumpsys location")[1], "the GPS again"
    assert run(vdev, "cmd location set-location-enabled false; cmd location is-location-enabled")[1] == "false\n"


def test_airplane_mode_wifi_and_data(vdev: VirtualDevice) -> None:
    assert run(vdev, "cmd connectivity airplane-mode") == (0, "disabled\n", "")
    run(vdev, "cmd connectivity airplane-mode enable")
    assert run(vdev, "cmd connectivity airplane-mode; dumpsys wifi | head -1")[1] == "enabled\nWi-Fi is disabled\n"
    run(vdev, "cmd connectivity airplane-mode disable")
    assert run(vdev, "cmd wifi status")[1] == "Wifi is enabled\n", "Wi-Fi comes back after airplane mode"
    run(vdev, "svc wifi disable; svc data disable")
    assert run(vdev, "cmd wifi status; settings get global mobile_data")[1] == "Wifi is disabled\n0\n"
    run(vdev, "cmd wifi set-wifi-enabled enabled; cmd phone data enable")
    assert run(vdev, "cmd wifi status; settings get global mobile_data")[1] == "Wifi is enabled\n1\n"


@pytest.mark.parametrize(("restriction", "command", "read", "unchanged"), [
    ("no_airplane_mode", "cmd connectivity airplane-mode enable", "cmd connectivity airplane-mode", "disabled\n"),
    ("no_change_wifi_state", "svc wifi disable", "cmd wifi status", "Wifi is enabled\n"),
    ("no_config_mobile_networks", "svc data disable", "settings get global mobile_data", "1\n"),
])
def test_a_device_policy_leaves_a_restricted_switch_as_it_is(vdev: VirtualDevice, restriction: str, command: str,
                                                             read: str, unchanged: str) -> None:
    vdev.state.policy.restrictions.add(restriction)
    assert run(vdev, command)[0] == 0, "refused silently, as the services do"
    assert run(vdev, read)[1] == unchanged


def test_night_mode_as_uimode_prints_it(vdev: VirtualDevice) -> None:
    assert run(vdev, "cmd uimode night") == (0, "Night mode: no\n", "")
    assert run(vdev, "cmd uimode night yes") == (0, "Night mode: yes\n", "")
    assert run(vdev, "cmd uimode night maybe") == (255, "", "Error: mode must be 'yes', 'no', or 'auto', or 'custom'\n")
    assert run(vdev, "settings get secure ui_night_mode")[1] == "2\n"


def test_a_posted_notification_shows_in_the_expanded_shade(vdev: VirtualDevice) -> None:
    run(vdev, "cmd notification post -t 'Sign-in code' code 'Your code is 4711'; cmd statusbar expand-notifications")
    shade = next(w for w in vdev.ui.windows() if w.title == "NotificationShade")
    texts = [(n.res, n.text) for n in shade.nodes() if n.text]
    assert texts == [("android:id/app_name_text", "Shell"), ("android:id/title", "Sign-in code"),
                     ("android:id/text", "Your code is 4711")]
    run(vdev, "cmd notification post -t Updated code 'Your code is 1000'; cmd statusbar collapse")
    assert not any(w.title == "NotificationShade" for w in vdev.ui.windows())
    assert [n.text for n in vdev.state.notifications.posted] == ["Your code is 1000"], "the same tag replaces"


def test_a_view_intent_opens_the_browser_or_fails_as_am_does(vdev: VirtualDevice) -> None:
    status, out, _ = run(vdev, "am start -W -a android.intent.action.VIEW -d 'https://example.com/a?b=1'")
    assert status == 0
    assert out.startswith("Starting: Intent { act=android.intent.action.VIEW dat=https://example.com/... }\n")
    assert "LaunchState: COLD\nActivity: com.android.chrome/com.google.android.apps.chrome.Main\n" in out
    browser = next(w for w in vdev.ui.windows() if w.package == "com.android.chrome")
    url_bar = [n.text for n in browser.nodes() if n.res == "com.android.chrome:id/url_bar"]
    assert url_bar == ["https://example.com/a?b=1"]
    assert "LaunchState: HOT" in run(vdev, "am start -W -a android.intent.action.VIEW -d https://example.org")[1]
    assert run(vdev, "am start -a android.intent.action.VIEW -d mailto:x@y.z")[2] == \
        "Error: Activity not started, unable to resolve Intent { act=android.intent.action.VIEW dat=mailto: " \
        "flg=0x10000000 }\n"
    _, _, err = run(vdev, "am start -a android.intent.action.VIEW -d https://example.com -p dev.mobileagent.fixture")
    assert "flg=0x10000000 pkg=dev.mobileagent.fixture }" in err
    assert run(vdev, "pm list packages -3")[1] == "package:dev.mobileagent.fixture\n", "the browser is the image's"


@pytest.mark.parametrize(("url", "tab"), [("fixture://tab/List", "List"), ("https://fixture.example/tab/Big", "Big"),
                                          ("fixture://tab/big", "Big")])
def test_the_fixture_apps_deep_links_open_its_tab_as_its_intent_filters_declare(vdev: VirtualDevice, url: str,
                                                                                 tab: str) -> None:
    """Issue 41 item 12: the fixture app handled no deep link; `fixture://tab/List` was unresolved
    and its https App Link opened the browser."""
    status, out, err = run(vdev, f"am start -W -a android.intent.action.VIEW -d '{url}'")
    assert status == 0, err
    assert "Activity: dev.mobileagent.fixture/.MainActivity\n" in out
    assert vdev.ui.app.tab == tab
    assert not any(w.package == "com.android.chrome" for w in vdev.ui.windows())


def test_a_deep_link_reaches_the_running_app_and_what_it_does_not_declare_goes_elsewhere(vdev: VirtualDevice) -> None:
    run(vdev, "am start -W -n dev.mobileagent.fixture/.MainActivity")
    assert vdev.ui.app.tab == "Login"
    assert "LaunchState: HOT" in run(vdev, "am start -W -a android.intent.action.VIEW -d fixture://tab/List")[1]
    assert vdev.ui.app.tab == "List"
    out = run(vdev, "am start -W -a android.intent.action.VIEW -d https://fixture.example/about")[1]
    assert "Activity: com.android.chrome/com.google.android.apps.chrome.Main" in out, "outside the filter's /tab/"
    assert "unable to resolve" in run(vdev, "am start -a android.intent.action.VIEW -d fixture://other/List")[2]


def test_an_unverified_app_link_opens_in_the_browser_unless_the_package_is_named(vdev: VirtualDevice) -> None:
    """Android 12+: an https filter whose host is not verified is not offered for a web link."""
    vdev.framework.packages.packages["dev.mobileagent.fixture"].verified_hosts.clear()
    url = "https://fixture.example/tab/List"
    assert "com.android.chrome/" in run(vdev, f"am start -W -a android.intent.action.VIEW -d {url}")[1]
    named = run(vdev, f"am start -W -a android.intent.action.VIEW -d {url} -p dev.mobileagent.fixture")[1]
    assert "Activity: dev.mobileagent.fixture/.MainActivity" in named and vdev.ui.app.tab == "List"


def _status_icons(vdev: VirtualDevice) -> list[str]:
    return [(node.res or "").rsplit("/", 1)[-1] for node in vdev.ui.status_bar.root.children[2:]]


def _status_pixels(vdev: VirtualDevice) -> bytes:
    left, top, right, bottom = vdev.ui.status_bar.bounds
    return vdev.ui.render().crop((right - 400, top, right, bottom)).tobytes()  # the icons, not the clock


def test_the_status_bar_icons_follow_airplane_mode_and_wifi_as_systemui_draws_them(vdev: VirtualDevice) -> None:
    """Issue 41 item 13: the icons showed Wi-Fi and the mobile signal in airplane mode and with Wi-Fi off."""
    assert _status_icons(vdev) == ["wifi_signal", "mobile_signal", "battery"]
    normal = _status_pixels(vdev)
    run(vdev, "cmd connectivity airplane-mode enable")
    assert _status_icons(vdev) == ["airplane", "battery"], "the radios off, the plane shown"
    airplane = next(n for n in vdev.ui.status_bar.root.children if (n.res or "").endswith("/airplane"))
    assert airplane.desc == "Airplane mode."
    assert _status_pixels(vdev) != normal
    run(vdev, "svc wifi enable")
    assert _status_icons(vdev) == ["airplane", "wifi_signal", "battery"], "Wi-Fi may be on in airplane mode"
    run(vdev, "cmd connectivity airplane-mode disable")
    run(vdev, "settings put global wifi_on 0")
    assert _status_icons(vdev) == ["mobile_signal", "battery"]
    run(vdev, "svc wifi enable")
    assert _status_icons(vdev) == ["wifi_signal", "mobile_signal", "battery"]
    assert _status_pixels(vdev) == normal
