"""Fixtures of the web engine's tests: a device with the fixture app running and a WebView page
open in its process's chromium."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from pytest_mobile_agent.virtual.device import VirtualDevice
from pytest_mobile_agent.virtual.ui.fixture import PACKAGE
from pytest_mobile_agent.virtual.web.browser import Kind, ProcessBrowser
from pytest_mobile_agent.virtual.web.chromium import Window
from pytest_mobile_agent.virtual.web.page import Page

PAGE_HTML = "data:text/html,<title>Probe</title><h1>Sign in</h1><input aria-label=Name><button>Go</button>"
WINDOW = Window(411, 800, 2.625)
DESCRIPTION = {"attached": True, "empty": False, "height": 2100, "never_attached": False, "screenX": 0,
               "screenY": 200, "visible": True, "width": 1080}


@dataclass
class OpenWebView:
    device: VirtualDevice
    browser: ProcessBrowser
    page: Page


def open_webview(device: VirtualDevice) -> OpenWebView:
    status, out, err = device.shell(f"am start -W -n {PACKAGE}/.MainActivity")
    assert status == 0, (out, err)
    browser = device.web.browser_of(PACKAGE, Kind.WEBVIEW, WINDOW)
    page = browser.open_page(lambda: dict(DESCRIPTION))
    page.navigate(PAGE_HTML)
    return OpenWebView(device, browser, page)


@pytest.fixture
def webview(vdev: VirtualDevice) -> Iterator[OpenWebView]:
    yield open_webview(vdev)
