"""The fixture app's web flow on the virtual device: the Login tab's "Sign in on the web" opens an
activity with two WebViews rendered by the app process's chromium, their content is in the replica
under `android.webkit.WebView` nodes, the page's submit greets the user natively through the
JavaScript interface, and BACK destroys the WebViews (their pages go mid-session)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from pytest_mobile_agent.virtual.device import VirtualDevice
from pytest_mobile_agent.virtual.ui.fixture import PACKAGE, WEB_SIGN_IN_BUTTON
from pytest_mobile_agent.virtual.ui.fixture_web import SIGN_IN_URL, TERMS_URL, WebSignIn
from pytest_mobile_agent.virtual.ui.node import Node
from pytest_mobile_agent.virtual.ui.webview import WEBVIEW_CLASS
from tests.support.chromium import WebSocket, http_get, needs_chromium
from tests.support.polling import wait_until
from tests.support.ui_nodes import by_res, tap

pytestmark = needs_chromium


@pytest.fixture
def signing_in(vdev: VirtualDevice) -> Iterator[WebSignIn]:
    status, out, err = vdev.shell(f"am start -W -n {PACKAGE}/.MainActivity")
    assert status == 0, (out, err)
    button = by_res(vdev.ui, "web_sign_in_button")
    assert button.text == WEB_SIGN_IN_BUTTON
    tap(vdev.ui, button)
    assert wait_until(lambda: vdev.ui.app.web_sign_in is not None, timeout=15.0)
    web = vdev.ui.app.web_sign_in
    assert web is not None
    for webview in web.webviews:
        assert webview.loaded.wait(20.0), webview.error
    assert wait_until(lambda: texts_under(web.sign_in.node) != [], timeout=15.0)
    yield web


def texts_under(node: Node) -> list[str]:
    return [n.text for n in node.walk() if n.text and n is not node]


def listed_pages(vdev: VirtualDevice) -> list[dict[str, Any]]:
    pid = vdev.activity.pid_of(PACKAGE)
    stream = vdev.open_service(f"localabstract:webview_devtools_remote_{pid}")
    try:
        status, pages = http_get(stream, "/json/list")
    finally:
        stream.close()
    assert status == 200
    return list(pages)


def test_the_button_opens_two_webviews_listed_on_the_apps_socket(vdev: VirtualDevice, signing_in: WebSignIn) -> None:
    pages = sorted(listed_pages(vdev), key=lambda page: page["url"])
    assert [page["url"] for page in pages] == sorted([SIGN_IN_URL, TERMS_URL])
    by_url = {page["url"]: json.loads(page["description"]) for page in pages}
    for webview, url in ((signing_in.sign_in, SIGN_IN_URL), (signing_in.terms, TERMS_URL)):
        left, top, right, bottom = webview.node.bounds
        assert by_url[url] == {"attached": True, "empty": False, "height": bottom - top, "never_attached": False,
                               "screenX": left, "screenY": top, "visible": True, "width": right - left}
    assert {page["title"] for page in pages} == {"Web sign-in", "Terms"}  # served from the app's assets


def test_the_pages_content_is_in_the_replica_under_the_webview_node(vdev: VirtualDevice,
                                                                    signing_in: WebSignIn) -> None:
    webview = signing_in.sign_in.node
    assert webview.cls == WEBVIEW_CLASS
    heading = next(n for n in webview.walk() if n.text == "Sign in")
    field = next(n for n in webview.walk() if n.cls == "android.widget.EditText")
    button = next(n for n in webview.walk() if n.text == "Continue")
    assert (field.hint, field.editable, button.cls, button.clickable) == ("Your name", True, "android.widget.Button",
                                                                          True)
    for node in (heading, field, button):  # inside the WebView, below the heading, in page order
        assert webview.bounds[0] <= node.bounds[0] < node.bounds[2] <= webview.bounds[2]
        assert webview.bounds[1] <= node.bounds[1] < node.bounds[3] <= webview.bounds[3]
    assert heading.bounds[3] <= field.bounds[1] < button.bounds[1]
    # what the agent reports of the screen: the web sign-in's window, the native Login under it not
    dump = vdev.ui.accessibility_windows()
    assert [w.title for w in dump if w.package == PACKAGE] == ["Sign in on the web"]
    status, xml, _ = vdev.shell("uiautomator dump >/dev/null && cat /sdcard/window_dump.xml")
    assert status == 0 and b'class="android.webkit.WebView"' in xml and b'text="Sign in"' in xml


def test_submit_greets_the_user_natively_through_the_javascript_interface(vdev: VirtualDevice,
                                                                         signing_in: WebSignIn) -> None:
    target = next(page["id"] for page in listed_pages(vdev) if page["url"] == SIGN_IN_URL)
    pid = vdev.activity.pid_of(PACKAGE)
    stream = vdev.open_service(f"localabstract:webview_devtools_remote_{pid}")
    try:
        page = WebSocket(stream, f"/devtools/page/{target}")
        answer = page.command("Runtime.evaluate", {
            "expression": "document.getElementById('name').value = 'Ada Lovelace';"
                          "document.getElementById('submit').click(); typeof Android.signIn"})
        assert answer["result"]["result"]["value"] == "function"  # addJavascriptInterface's object
    finally:
        stream.close()
    assert wait_until(lambda: vdev.ui.app.alert is not None, timeout=15.0)
    assert by_res(vdev.ui, "alert_message").text == "Welcome, Ada Lovelace"
    assert vdev.ui.app.signed_in_as == "Ada Lovelace"
    assert vdev.ui.app.web_sign_in is None  # the activity finished
    assert wait_until(lambda: listed_pages(vdev) == [], timeout=15.0)


def test_a_tap_on_the_web_button_in_the_replica_reaches_the_page(vdev: VirtualDevice, signing_in: WebSignIn) -> None:
    page = signing_in.sign_in.page
    assert page is not None
    page.call("Runtime.evaluate", {"expression": "document.getElementById('name').value = 'Grace'"})
    button = next(n for n in signing_in.sign_in.node.walk() if n.text == "Continue")
    tap(vdev.ui, button)
    assert wait_until(lambda: vdev.ui.app.alert is not None, timeout=15.0)
    assert by_res(vdev.ui, "alert_message").text == "Welcome, Grace"


def test_typing_in_the_page_reaches_the_replica(vdev: VirtualDevice, signing_in: WebSignIn) -> None:
    page = signing_in.sign_in.page
    assert page is not None
    page.call("Runtime.evaluate", {"expression": "document.getElementById('name').focus()"})
    page.call("Input.insertText", {"text": "Hopper"})

    def field() -> Node:
        return next(n for n in signing_in.sign_in.node.walk() if n.cls == "android.widget.EditText")

    assert wait_until(lambda: field().text == "Hopper", timeout=15.0)
    assert field().focused


def test_back_destroys_the_webviews_and_an_attached_client_sees_its_page_go(vdev: VirtualDevice,
                                                                           signing_in: WebSignIn) -> None:
    target = next(page["id"] for page in listed_pages(vdev) if page["url"] == SIGN_IN_URL)
    pid = vdev.activity.pid_of(PACKAGE)
    stream = vdev.open_service(f"localabstract:webview_devtools_remote_{pid}")
    try:
        browser = WebSocket(stream, "/devtools/browser")
        browser.command("Target.setDiscoverTargets", {"discover": True})
        assert vdev.ui.key(4)  # BACK
        destroyed = set()
        while target not in destroyed:
            message = json.loads(browser.receive_text(timeout=10.0))
            if message.get("method") == "Target.targetDestroyed":
                destroyed.add(message["params"]["targetId"])
    finally:
        stream.close()
    assert vdev.ui.app.web_sign_in is None and vdev.ui.app.signed_in_as is None
    assert wait_until(lambda: listed_pages(vdev) == [], timeout=15.0)
    # the process's DevTools server stays while the process lives, as WebView's does
    assert f"@webview_devtools_remote_{pid}".encode() in vdev.shell("cat /proc/net/unix")[1]


def test_each_webview_lays_its_page_out_at_its_own_size(signing_in: WebSignIn) -> None:
    for webview in signing_in.webviews:
        assert webview.page is not None
        size = webview.page.call("Runtime.evaluate", {"expression": "[innerWidth, innerHeight, devicePixelRatio]",
                                                      "returnByValue": True})["result"]["value"]
        left, top, right, bottom = webview.node.bounds
        assert size == [round((right - left) / webview.scale), round((bottom - top) / webview.scale), webview.scale]


def test_the_screen_shows_the_pages_own_pixels(vdev: VirtualDevice, signing_in: WebSignIn) -> None:
    webview = signing_in.sign_in
    assert wait_until(lambda: webview.pixels.image is not None, timeout=15.0)
    frame = vdev.display.render()
    left, top, right, bottom = webview.node.bounds
    shown = frame.crop((left, top, right, bottom))
    painted = webview.pixels.image
    assert painted is not None and painted.size == shown.size
    assert shown.tobytes() == painted.tobytes()
    assert len(shown.getcolors(1 << 24) or []) > 2  # a page, not a blank rectangle


def test_with_web_debugging_off_the_pages_render_and_the_process_serves_no_socket(vdev: VirtualDevice) -> None:
    vdev.shell(f"am start -W -S -n {PACKAGE}/.MainActivity --es web_debugging off")
    tap(vdev.ui, by_res(vdev.ui, "web_sign_in_button"))
    assert wait_until(lambda: vdev.ui.app.web_sign_in is not None, timeout=15.0)
    web = vdev.ui.app.web_sign_in
    assert web is not None and web.sign_in.loaded.wait(20.0)
    assert wait_until(lambda: "Continue" in texts_under(web.sign_in.node), timeout=15.0)
    assert b"webview_devtools_remote" not in vdev.shell("cat /proc/net/unix")[1]
    # turned on again (WebView.setWebContentsDebuggingEnabled(true)): the next WebView serves it
    web.finish()
    vdev.shell(f"am start -W -n {PACKAGE}/.MainActivity --es web_debugging on")
    tap(vdev.ui, by_res(vdev.ui, "web_sign_in_button"))
    assert wait_until(lambda: vdev.ui.app.web_sign_in is not None, timeout=15.0)
    again = vdev.ui.app.web_sign_in
    assert again is not None and again.sign_in.loaded.wait(20.0)
    assert wait_until(lambda: sorted(p["url"] for p in listed_pages(vdev)) == sorted([SIGN_IN_URL, TERMS_URL]),
                      timeout=10.0)


def test_a_tap_on_the_web_field_brings_the_keyboard_and_its_keys_reach_the_page(vdev: VirtualDevice,
                                                                                signing_in: WebSignIn) -> None:
    field = next(n for n in signing_in.sign_in.node.walk() if n.cls == "android.widget.EditText")
    tap(vdev.ui, field)
    assert wait_until(lambda: vdev.ui.keyboard_shown, timeout=15.0)
    status, _, err = vdev.shell("input text Ada")
    assert status == 0, err
    page = signing_in.sign_in.page
    assert page is not None

    def value() -> object:
        return page.call("Runtime.evaluate", {"expression": "document.getElementById('name').value",
                                              "returnByValue": True})["result"]["value"]

    assert wait_until(lambda: value() == "Ada", timeout=15.0)

    def replica() -> Node:
        return next(n for n in signing_in.sign_in.node.walk() if n.cls == "android.widget.EditText")

    assert wait_until(lambda: replica().text == "Ada" and replica().focused, timeout=15.0)
