"""Playwright for Python attaches to the virtual device's WebView as it would to a device's: over
a loopback listener relaying each connection to `localabstract:webview_devtools_remote_<pid>`
(here a few lines of the test's own; the driver's bridge is the `web` room's), and the native →
web → native flow runs: Playwright fills the page's form, the app greets the user natively."""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator

import pytest

from pytest_mobile_agent.virtual.device import VirtualDevice
from pytest_mobile_agent.virtual.kernel.streams import pump
from pytest_mobile_agent.virtual.ui.fixture import PACKAGE
from pytest_mobile_agent.virtual.ui.fixture_web import SIGN_IN_URL, TERMS_URL
from pytest_mobile_agent.virtual.web.devtools_socket import TcpStream
from tests.support.chromium import needs_chromium
from tests.support.polling import wait_until
from tests.support.ui_nodes import by_res, tap

sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed (pip install playwright)")
pytestmark = needs_chromium


@pytest.fixture
def relay(vdev: VirtualDevice) -> Iterator[tuple[socket.socket, list[str]]]:
    """A loopback listener; each connection goes to the device socket named in the list."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    target: list[str] = []

    def serve() -> None:
        with contextlib.suppress(OSError):
            while True:
                conn, _ = listener.accept()
                stream = vdev.open_service(f"localabstract:{target[0]}")
                pump(TcpStream(conn), stream, name="test-relay-up")
                pump(stream, TcpStream(conn), name="test-relay-down")

    threading.Thread(target=serve, daemon=True).start()
    yield listener, target
    listener.close()


def test_playwright_fills_the_web_form_and_the_app_greets_natively(
        vdev: VirtualDevice, relay: tuple[socket.socket, list[str]]) -> None:
    listener, target = relay
    vdev.shell(f"am start -W -n {PACKAGE}/.MainActivity")
    tap(vdev.ui, by_res(vdev.ui, "web_sign_in_button"))
    assert wait_until(lambda: vdev.ui.app.web_sign_in is not None, timeout=15.0)
    web = vdev.ui.app.web_sign_in
    assert web is not None and all(webview.loaded.wait(20.0) for webview in web.webviews)
    target.append(f"webview_devtools_remote_{vdev.activity.pid_of(PACKAGE)}")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.connect_over_cdp(f"http://127.0.0.1:{listener.getsockname()[1]}")
        try:
            pages = browser.contexts[0].pages
            assert sorted(page.url for page in pages) == sorted([SIGN_IN_URL, TERMS_URL])  # both WebViews
            page = next(page for page in pages if page.url == SIGN_IN_URL)
            assert page.title() == "Web sign-in"
            page.fill("#name", "Playwright")
            page.click("#submit")
            assert wait_until(lambda: vdev.ui.app.alert is not None, timeout=15.0)
        finally:
            browser.close()
    assert by_res(vdev.ui, "alert_message").text == "Welcome, Playwright"
