"""The tools people query the framework's services with: dumpsys display and power in the framework's
layouts, settings, uiautomator dump."""

from __future__ import annotations

import re

from pytest_mobile_agent.virtual.device import VirtualDevice
from tests.support.virtual_shell import run_shell as run

VIEWPORT = re.compile(
    r".*DisplayViewport{.*?valid=true, .*?orientation=(?P<orientation>\d+), .*?deviceWidth=(?P<width>\d+), "
    r"deviceHeight=(?P<height>\d+).*"
)  # adbutils.shell._DISPLAY_RE


def test_dumpsys_display_gives_the_viewport_adbutils_reads_and_follows_wm_size(vdev: VirtualDevice) -> None:
    status, out, _ = run(vdev, "dumpsys display")
    assert status == 0 and out.startswith("DISPLAY MANAGER (dumpsys display)\n")
    first = next(line for line in out.splitlines() if "orientation=" in line)
    match = VIEWPORT.match(first)
    assert match is not None and match.group("orientation", "width", "height") == ("0", "1080", "2400")
    assert "density 420" in out
    run(vdev, "wm size 720x1600")
    assert "real 720 x 1600" in run(vdev, "dumpsys display")[1]


def test_dumpsys_power_says_awake_and_on(vdev: VirtualDevice) -> None:
    out = run(vdev, "dumpsys power")[1].splitlines()
    assert out[0] == "POWER MANAGER (dumpsys power)"
    assert "  mWakefulness=Awake" in out and "  mHoldingDisplaySuspendBlocker=true" in out
    assert "Display Power: state=ON" in out


def test_settings_screen_brightness_is_the_providers_default(vdev: VirtualDevice) -> None:
    assert run(vdev, "settings get system screen_brightness; settings put system screen_brightness 30; "
                     "settings get system screen_brightness") == (0, "102\n30\n", "")


def test_uiautomator_dump_prints_its_line_on_stdout(vdev: VirtualDevice) -> None:
    assert run(vdev, "uiautomator dump") == (0, "UI hierchary dumped to: /sdcard/window_dump.xml\n", "")
