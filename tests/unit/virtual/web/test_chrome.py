"""`open_url` on the virtual device: the VIEW intent of a web URL opens the page in the virtual
Chrome (`com.android.chrome`), whose own chromium serves `chrome_devtools_remote`; Chrome's socket
lists Chrome's tab and never the app's WebViews, nor the other way round."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator

import pytest

from pytest_mobile_agent.virtual.android.intents import BROWSER_PACKAGE
from pytest_mobile_agent.virtual.device import VirtualDevice
from pytest_mobile_agent.virtual.ui.fixture import PACKAGE
from tests.support.chromium import http_get, needs_chromium
from tests.support.polling import wait_until
from tests.unit.virtual.web.conftest import open_webview

pytestmark = needs_chromium

HELP_PAGE = b"<!doctype html><title>Help centre</title><h1>How can we help?</h1>"


class _Pages(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 - the standard library's name
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(HELP_PAGE)))
        self.end_headers()
        self.wfile.write(HELP_PAGE)

    def log_message(self, *args: object) -> None:
        return None


@pytest.fixture
def site() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Pages)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/help"
    server.shutdown()
    server.server_close()


def chrome_pages(vdev: VirtualDevice, name: str = "chrome_devtools_remote") -> list[dict[str, object]]:
    stream = vdev.open_service(f"localabstract:{name}")
    try:
        return list(http_get(stream, "/json/list")[1])
    finally:
        stream.close()


def test_a_view_intent_opens_the_page_in_chrome_on_chrome_devtools_remote(vdev: VirtualDevice, site: str) -> None:
    status, out, err = vdev.shell(f"am start -W -a android.intent.action.VIEW -d {site}")
    assert status == 0 and b"com.android.chrome/com.google.android.apps.chrome.Main" in out, err
    assert wait_until(lambda: b"@chrome_devtools_remote\n" in vdev.shell("cat /proc/net/unix")[1], timeout=20.0)
    assert wait_until(lambda: [(p["url"], p["title"]) for p in chrome_pages(vdev)] == [(site, "Help centre")],
                      timeout=10.0)
    assert chrome_pages(vdev)[0]["description"] == ""
    stream = vdev.open_service("localabstract:chrome_devtools_remote")
    try:
        _, version = http_get(stream, "/json/version")
    finally:
        stream.close()
    assert version["Android-Package"] == BROWSER_PACKAGE
    assert "; wv)" not in version["User-Agent"] and "Mobile Safari" in version["User-Agent"]
    # the page is on the screen as Chrome's web contents expose it
    assert wait_until(lambda: any(n.text == "How can we help?" for w in vdev.ui.accessibility_windows()
                                  for n in w.root.walk()), timeout=10.0)


def test_chrome_and_the_app_each_list_only_their_own_pages(vdev: VirtualDevice, site: str) -> None:
    webview = open_webview(vdev)
    vdev.shell(f"am start -W -a android.intent.action.VIEW -d {site}")
    assert wait_until(lambda: b"@chrome_devtools_remote\n" in vdev.shell("cat /proc/net/unix")[1], timeout=20.0)
    assert wait_until(lambda: [p["url"] for p in chrome_pages(vdev)] == [site], timeout=10.0)
    app_pages = chrome_pages(vdev, webview.browser.socket_name)
    assert [p["id"] for p in app_pages] == [webview.page.target_id]
    chrome_pid = vdev.activity.pid_of(BROWSER_PACKAGE)
    assert chrome_pid is not None and chrome_pid != vdev.activity.pid_of(PACKAGE)


def test_a_later_url_replaces_chromes_page_and_a_force_stop_ends_its_socket(vdev: VirtualDevice, site: str) -> None:
    vdev.shell(f"am start -W -a android.intent.action.VIEW -d {site}")
    assert wait_until(lambda: [p["url"] for p in chrome_pages_or_none(vdev)] == [site], timeout=20.0)
    vdev.shell(f"am start -W -a android.intent.action.VIEW -d {site}?second")
    assert wait_until(lambda: [p["url"] for p in chrome_pages(vdev)] == [f"{site}?second"], timeout=10.0)
    vdev.shell(f"am force-stop {BROWSER_PACKAGE}")
    assert b"chrome_devtools_remote" not in vdev.shell("cat /proc/net/unix")[1]


def chrome_pages_or_none(vdev: VirtualDevice) -> list[dict[str, object]]:
    if b"@chrome_devtools_remote\n" not in vdev.shell("cat /proc/net/unix")[1]:
        return []
    return chrome_pages(vdev)


def test_a_custom_tab_is_a_page_of_chromes_process(vdev: VirtualDevice, site: str) -> None:
    """An app's Custom Tab is Chrome's CustomTabActivity: a VIEW intent for Chrome's package with
    the Custom Tabs session extra (androidx.browser's CustomTabsIntent.launchUrl)."""
    status, out, err = vdev.shell(f"am start -W -a android.intent.action.VIEW -d {site}?tab -p {BROWSER_PACKAGE} "
                                  "--es android.support.customtabs.extra.SESSION none")
    assert status == 0, err
    assert wait_until(lambda: [p["url"] for p in chrome_pages_or_none(vdev)] == [f"{site}?tab"], timeout=20.0)
