"""The doctor's web check on the virtual device: the app's WebViews listed and attached when they are
open; otherwise a blank page opened in Chrome, attached, and Chrome stopped again."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from pytest_mobile_agent.adb import AdbServer, Device
from pytest_mobile_agent.cli.doctor_web import NoWebTarget, WebCheck
from pytest_mobile_agent.virtual.lab import VirtualLab
from tests.support.chromium import needs_chromium
from tests.support.web_peer import NEEDS_PLAYWRIGHT
from tests.unit.virtual.web.conftest import open_webview

pytestmark = [needs_chromium, NEEDS_PLAYWRIGHT]


@pytest.fixture
def lab() -> Iterator[VirtualLab]:
    with VirtualLab.start(1) as started:
        yield started


@pytest.fixture
def device(lab: VirtualLab) -> Device:
    return AdbServer(port=lab.adb_port).device(lab.serials[0])


def test_an_open_webview_is_the_target_attached(lab: VirtualLab, device: Device) -> None:
    open_webview(lab.device(lab.serials[0]))
    check = WebCheck(device)
    detail = check.run()
    assert detail.startswith("1 debuggable target: webview_devtools_remote_")
    assert "(dev.mobileagent.fixture, 1 page); attached to data:text/html" in detail
    assert not check.started_chrome
    assert check.figures["round_trip_ms"] >= 0 and check.figures["browser"].startswith("Chrome/")


def test_without_a_target_chrome_opens_a_blank_page_and_is_stopped_after(device: Device) -> None:
    check = WebCheck(device)
    assert "chrome_devtools_remote (com.android.chrome, 1 page); attached to about:blank" in check.run()
    assert device.shell("pidof com.android.chrome").text().strip()
    check.clean_up()
    assert not device.shell("pidof com.android.chrome").text().strip()


class WithoutChrome:
    """The device as one without Chrome answers `pm path com.android.chrome` (nothing)."""

    def __init__(self, device: Device) -> None:
        self.device = device
        self.serial = device.serial

    def shell(self, cmd: str) -> Any:
        return self.device.shell("true" if cmd == "pm path com.android.chrome" else cmd)

    def open_abstract(self, name: str) -> Any:
        return self.device.open_abstract(name)


def test_without_a_target_or_chrome_the_check_says_what_it_needs(device: Device) -> None:
    with pytest.raises(NoWebTarget, match="open a WebView of a debuggable build, or install Chrome"):
        WebCheck(WithoutChrome(device)).run()  # type: ignore[arg-type]
    assert not device.shell("pidof com.android.chrome").text().strip()
