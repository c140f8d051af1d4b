"""Everything a test changed on the device is back as it was after the test, even when it failed
(issue 26): an inner run on a served virtual device changes every capability and fails; the device
is then read back, on the emulator's path (the controller double found by its discovery file, the
console at its serial's port behind Debian's adb server, as an emulator's) and on the device's
(`--emulator-controller off`)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_mobile_agent.emulator.discovery import DISCOVERY_DIR_ENV
from pytest_mobile_agent.virtual import VirtualLab

pytest_plugins = ["pytester"]

CHANGES_EVERYTHING_AND_FAILS = """
def test_changes_everything_and_fails(device_control):
    d = device_control
    d.rotate("landscape")
    d.set_location(48.8566, 2.3522)
    d.set_battery(level=7, charging=False)
    d.set_network(airplane=True)
    d.set_network(airplane=False, wifi=False, data=False)
    d.set_dark_mode(True)
    d.set_font_scale(1.5)
    d.set_clipboard("from the failing test")
    d.open_notifications()
    d.open_url("https://example.com")
    if d.paths.controller is not None:
        d.set_posture("tent")
        d.set_network_speed("gsm")
        d.set_network_delay("edge")
    d.screen_off()
    assert False, "the test fails with everything changed"
"""


def snapshot(device: Any) -> dict[str, object]:
    state = device.state
    battery = state.battery.info
    return {
        "rotation": (device.display.rotation, device.display.rotation_frozen),
        "rotation settings": {k: device.framework.settings["system"].get(k)
                              for k in ("accelerometer_rotation", "user_rotation")},
        "location": (state.location.last_fix("gps"), dict(state.location.test_providers), dict(state.location.app_ops)),
        "battery": (battery.level, battery.ac, battery.status, state.battery.updates_stopped,
                    state.battery.hardware.level),
        "radios": (state.radios.airplane, state.radios.wifi, state.radios.data),
        "night": state.uimode.night,
        "font scale": device.framework.settings["system"].get("font_scale"),
        "clipboard": device.ui.clipboard,
        "shade": state.notifications.shade_expanded,
        "posture": state.sensors.posture,
        "link": (state.link.upload_bps, state.link.download_bps, state.link.min_latency_ms, state.link.max_latency_ms),
        "power": (state.power.awake, state.power.keyguard_showing),
        "browser": device.activity.is_running("com.android.chrome"),
    }


@pytest.fixture
def served(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[VirtualLab]:
    for name in ("MOBILE_AGENT_JAR", "MOBILE_AGENT_RECORDS", "MOBILE_AGENT_ANDROID_SERIAL", "ADB_SERVER_SOCKET",
                 "ANDROID_ADB_SERVER_PORT", "MOBILE_AGENT_EMULATOR_CONTROLLER"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("MOBILE_AGENT_LOCK_DIR", str(tmp_path / "locks"))
    discovery = tmp_path / "avd"
    monkeypatch.setenv(DISCOVERY_DIR_ENV, str(discovery))
    with VirtualLab.start(1, real_adb=True, discovery_dir=discovery) as lab:
        monkeypatch.setenv("HOME", str(lab.home))  # where `adb emu` and the driver read the console's token
        yield lab


@pytest.mark.parametrize("path", ["emulator", "device"])
def test_a_failing_test_leaves_the_device_as_it_found_it(pytester: pytest.Pytester, served: VirtualLab,
                                                        path: str) -> None:
    serial = served.serials[0]
    device = served.device(serial)
    if path == "emulator":
        served.start_controller(serial)  # its console is on its serial's port, as an emulator's is
    device.ui.clipboard = "the user's clip"
    before = snapshot(device)
    pytester.makepyfile(test_inner=CHANGES_EVERYTHING_AND_FAILS)
    result = pytester.runpytest_subprocess("-p", "no:randomly", "-p", "no:xdist", "--android-serial",
                                           f"tcp:127.0.0.1:{served.adb_port}/{serial}", "--quiet-wait", "5",
                                           "--emulator-controller", "auto" if path == "emulator" else "off")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*the test fails with everything changed*"])
    uses = "the emulator's controller (setBattery, setGps)" if path == "emulator" else "the shell (dumpsys battery"
    assert f"battery and location through {uses}" in result.stdout.str()
    assert snapshot(device) == before
