"""A peer library on the virtual device: adbutils (openatx/adbutils, in the dev extra) through both
adb fronts, with the calls whose parsers read the services' dumps and the tools' output:
window_size() (`wm size`, and the orientation in `dumpsys display`), is_screen_on() (`dumpsys
power`'s mHoldingDisplaySuspendBlocker=true), wlan_ip() (`ifconfig wlan0`'s `inet addr:`), and
shell() pipelines of toybox tools."""

from __future__ import annotations

from collections.abc import Iterator

import adbutils
import pytest

from pytest_mobile_agent.virtual.lab import VirtualLab, adb_binary

pytestmark = pytest.mark.skipif(adb_binary() is None, reason="no adb binary (/usr/bin/adb): apt-get install adb")


@pytest.fixture(scope="module")
def lab() -> Iterator[VirtualLab]:
    with VirtualLab.start(1, real_adb=True) as started:
        yield started


@pytest.fixture(params=["real", "builtin"])
def device(request: pytest.FixtureRequest, lab: VirtualLab) -> adbutils.AdbDevice:
    port = lab.adb_port if request.param == "real" else lab.builtin_adb_port
    return adbutils.AdbClient(host="127.0.0.1", port=port, socket_timeout=10).device(serial=lab.serials[0])


def test_window_size_reads_wm_size_and_the_displays_orientation(device: adbutils.AdbDevice) -> None:
    assert device.rotation() == 0
    assert tuple(device.window_size()) == (1080, 2400)


def test_the_screen_is_on(device: adbutils.AdbDevice) -> None:
    assert device.is_screen_on() is True


def test_the_wlan_address_is_the_emulators_wifi_address(device: adbutils.AdbDevice) -> None:
    assert device.wlan_ip() == "10.0.2.16"


def test_shell_pipelines_of_toybox_tools(device: adbutils.AdbDevice) -> None:
    assert device.shell("ps -A | grep adbd | cut -c1-12").strip() == "shell"
    pid = device.shell("ps -A -o PID,NAME | grep -w adbd | cut -c1-5").strip()
    assert pid == "412"
    assert device.shell("getprop ro.build.version.sdk | tr -d '\\n' | wc -c").strip() == "2"
    assert device.shell("echo b a c | tr ' ' '\\n' | sort | uniq | sed -n 2p") == "b"
