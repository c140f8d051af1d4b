"""The web room against the virtual device through both adb fronts (the built-in adb-server endpoint,
and Debian's adb server with the device's adbd endpoint behind it): the sockets read from the
device's /proc/net/unix, the bridge relaying through `localabstract:`, Playwright attached, a page or
a process gone mid-test."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from pytest_mobile_agent.adb import AdbServer, Device
from pytest_mobile_agent.errors import Disconnected
from pytest_mobile_agent.mirror.steps import Step, Steps
from pytest_mobile_agent.virtual.lab import VirtualLab, adb_binary
from pytest_mobile_agent.virtual.ui.fixture import PACKAGE
from pytest_mobile_agent.web.content import WebContent
from tests.support.chromium import needs_chromium
from tests.support.web_peer import NEEDS_PLAYWRIGHT
from tests.unit.virtual.web.conftest import OpenWebView, open_webview

pytestmark = [needs_chromium, NEEDS_PLAYWRIGHT]


class Names:
    def __init__(self) -> None:
        self.ended: list[str] = []

    def step_started(self, step: Step) -> None:
        pass

    def step_ended(self, step: Step) -> None:
        self.ended.append(step.name)


@pytest.fixture(params=["builtin", "real-adb"])
def lab(request: pytest.FixtureRequest) -> Iterator[VirtualLab]:
    if request.param == "real-adb" and adb_binary() is None:
        pytest.skip("no adb binary (/usr/bin/adb): apt-get install adb")
    with VirtualLab.start(1, real_adb=request.param == "real-adb") as started:
        yield started


@pytest.fixture
def opened(lab: VirtualLab) -> OpenWebView:
    return open_webview(lab.device(lab.serials[0]))


@pytest.fixture
def device(lab: VirtualLab) -> Device:
    return AdbServer(port=lab.adb_port).device(lab.serials[0])


def test_the_apps_webview_is_listed_and_attached_through_adb(opened: OpenWebView, device: Device) -> None:
    names = Names()
    steps = Steps()
    steps.add_listener(names)
    web = WebContent(device, steps)
    try:
        [target] = web.targets()
        pid = int(device.shell(f"pidof {PACKAGE}").text().strip())
        assert (target.socket, target.package, target.pid) == (f"webview_devtools_remote_{pid}", PACKAGE, pid)
        assert [(page.title, page.in_front) for page in target.pages] == [("Probe", True)]
        page = web.page(PACKAGE, title="Probe", timeout=30)
        page.get_by_label("Name").fill("Ada")
        assert page.get_by_label("Name").input_value() == "Ada"
        assert names.ended == ["locator.fill", "locator.input_value"]
    finally:
        web.close()
    assert not [t for t in threading.enumerate() if t.name.startswith("mobile-agent-web")]


def test_a_page_closed_on_the_device_mid_test_is_disconnected(opened: OpenWebView, device: Device) -> None:
    web = WebContent(device, Steps())
    try:
        page = web.page(title="Probe", timeout=30)
        opened.browser.close_page(opened.page)
        with pytest.raises(Disconnected, match=f"{PACKAGE} .* is gone"):
            page.get_by_label("Name").fill("Ada", timeout=20_000)
    finally:
        web.close()


def test_the_apps_process_killed_mid_test_is_disconnected(opened: OpenWebView, device: Device) -> None:
    web = WebContent(device, Steps())
    try:
        page = web.page(title="Probe", timeout=30)
        device.shell(f"am force-stop {PACKAGE}")
        with pytest.raises(Disconnected, match="is gone"):
            page.get_by_label("Name").fill("Ada", timeout=20_000)
        assert web.targets() == []
    finally:
        web.close()
