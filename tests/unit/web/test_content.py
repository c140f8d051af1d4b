"""Web content over the bridge, against a real peer: the host's chromium on loopback behind a device whose
abstract sockets lead to it (tests/support/web_peer.py)."""

from __future__ import annotations

import asyncio
import importlib
import socket
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from pytest_mobile_agent.errors import Disconnected
from pytest_mobile_agent.mirror.steps import Steps
from pytest_mobile_agent.web import playwright_attach
from pytest_mobile_agent.web.bridge import Bridge
from pytest_mobile_agent.web.content import WebContent
from pytest_mobile_agent.web.errors import PageNotFound, WebExtraMissing, WebViewNotDebuggable, WebViewTooOld
from pytest_mobile_agent.web.listing import BrowserVersion
from tests.support.step_recorder import StepRecorder
from tests.support.web_peer import NEEDS_CHROMIUM, NEEDS_PLAYWRIGHT, LoopbackDevice, chromium_on_loopback

SIGN_IN = ("data:text/html,<title>Sign in</title><input id=who aria-label=Name>"
           "<button onclick=\"document.title='Hello '%2Bwho.value;console.log('sent',who.value)\">Send</button>")
WEBVIEW = "webview_devtools_remote_4242"
APP = "dev.mobileagent.fixture"

pytestmark = [NEEDS_CHROMIUM, NEEDS_PLAYWRIGHT]


@pytest.fixture
def chromium_port() -> Iterator[int]:
    with chromium_on_loopback(SIGN_IN, "Sign in") as port:
        yield port


@pytest.fixture
def device(chromium_port: int) -> LoopbackDevice:
    device = LoopbackDevice()
    device.serve(WEBVIEW, chromium_port, 4242, APP)
    return device


@pytest.fixture
def steps() -> tuple[Steps, StepRecorder]:
    steps, recorded = Steps(), StepRecorder()
    steps.add_listener(recorded)
    return steps, recorded


def test_targets_list_each_socket_with_its_package_and_pages(device: LoopbackDevice) -> None:
    content = WebContent(device, Steps())
    [target] = content.targets()
    assert (target.socket, target.package, target.kind, target.pid) == (WEBVIEW, APP, "webview", 4242)
    assert [page.title for page in target.pages] == ["Sign in"]


def test_a_page_is_attached_and_each_web_action_is_a_step_named_as_playwright_names_it(
        device: LoopbackDevice, steps: tuple[Steps, StepRecorder]) -> None:
    from playwright.sync_api import Page

    recorder, recorded = steps
    content = WebContent(device, recorder)
    try:
        page = content.page(APP, title="Sign in", timeout=20)
        assert isinstance(page, Page)
        page.get_by_label("Name").fill("Ada")
        page.click("button")
        assert page.title() == "Hello Ada"
        assert [step.name for step in recorded.ended] == ["locator.fill", "page.click", "page.title"]
        assert recorded.ended[0].arguments == {"value": "Ada"}
        assert recorded.ended[1].arguments == {"selector": "button"}
        assert content.pages[0].console == ["log: sent Ada"]
    finally:
        content.close()
        with pytest.raises(Exception):  # noqa: B017 - Playwright's own error: the connection is closed
            page.title()


def test_the_close_ends_the_bridge_and_its_connections(device: LoopbackDevice) -> None:
    content = WebContent(device, Steps())
    content.page(title="Sign in", timeout=20)
    [bridge] = list(content.bridges())
    port = bridge.port
    content.close()
    assert bridge.connections == 0
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    assert not [t for t in threading.enumerate() if t.name.startswith("mobile-agent-web")]


def test_a_socket_the_device_closes_while_attached_is_disconnected_not_a_hang(
        device: LoopbackDevice, steps: tuple[Steps, StepRecorder]) -> None:
    recorder, recorded = steps
    content = WebContent(device, recorder)
    try:
        page = content.page(title="Sign in", timeout=20)
        device.drop(WEBVIEW)
        with pytest.raises(Disconnected, match=f"{APP} .*{WEBVIEW}.* is gone: the device closed"):
            page.click("button", timeout=20_000)
        assert recorded.ended[-1].ended_by == "Disconnected"
    finally:
        content.close()


def test_a_page_that_never_appears_lists_the_pages_seen(device: LoopbackDevice) -> None:
    content = WebContent(device, Steps())
    with pytest.raises(PageNotFound, match=r"(?s)whose url contains 'checkout'.*0.3 s.*'Sign in'") as failure:
        content.page(url_contains="checkout", timeout=0.3)
    assert failure.value.is_timeout()


def test_a_webview_on_screen_without_a_socket_is_not_debuggable(device: LoopbackDevice) -> None:
    content = WebContent(device, Steps())
    content.webviews_on_screen = lambda: ["com.example.shop"]
    with pytest.raises(WebViewNotDebuggable, match="com.example.shop shows a WebView.*setWebContentsDebuggingEnabled"):
        content.page("com.example.shop", timeout=0.2)


def test_two_sockets_are_attached_side_by_side(chromium_port: int, device: LoopbackDevice) -> None:
    with chromium_on_loopback("data:text/html,<title>Help</title>", "Help") as other:
        device.serve("chrome_devtools_remote", other, 5000, "com.android.chrome")
        content = WebContent(device, Steps())
        try:
            first = content.page(APP, timeout=20)
            second = content.page("com.android.chrome", title="Help", timeout=20)
            assert (first.title(), second.title()) == ("Sign in", "Help")
            assert len(list(content.bridges())) == 2
        finally:
            content.close()


def test_without_playwright_the_error_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.import_module

    def no_playwright(name: str, *args: Any) -> Any:
        if name.startswith("playwright"):
            raise ModuleNotFoundError("No module named 'playwright'")
        return real(name, *args)
    monkeypatch.setattr(importlib, "import_module", no_playwright)
    with pytest.raises(WebExtraMissing, match=r"pip install 'pytest-mobile-agent\[web\]'"):
        playwright_attach.start_playwright()


def test_devtools_lacking_a_method_name_the_webview_version(device: LoopbackDevice) -> None:
    from playwright.sync_api import Error

    class OldChromium:
        class chromium:  # noqa: N801 - Playwright's attribute
            @staticmethod
            def connect_over_cdp(endpoint: str, timeout: float) -> Any:
                raise Error("BrowserType.connect_over_cdp: Protocol error (Browser.setDownloadBehavior): "
                            "'Browser.setDownloadBehavior' wasn't found")
    version = BrowserVersion("Chrome/61.0.3163.98", APP, "1.2", "", "/devtools/browser")
    bridge = Bridge(device, WEBVIEW)
    try:
        with pytest.raises(WebViewTooOld, match="Chrome/61.0.3163.98.*setDownloadBehavior.*update Android System"):
            playwright_attach.connect(OldChromium(), bridge.port, version, WEBVIEW, 1.0)  # type: ignore[arg-type]
    finally:
        bridge.close()


def test_text_filled_into_what_names_a_password_is_masked_in_the_steps(
        chromium_port: int, steps: tuple[Steps, StepRecorder]) -> None:
    recorder, recorded = steps
    device = LoopbackDevice()
    device.serve(WEBVIEW, chromium_port, 4242, APP)
    content = WebContent(device, recorder)
    try:
        page = content.page(title="Sign in", timeout=20)
        page.evaluate("document.body.insertAdjacentHTML('beforeend', "
                      "'<label>Password <input id=password type=password></label>')")
        page.fill("#password", "hunter2")
        page.get_by_label("Password").fill("s3cret")
        page.get_by_label("Name").fill("Ada")
        assert [step.arguments.get("value") for step in recorded.ended if step.name.endswith(".fill")] == [
            "•" * 7, "•" * 6, "Ada"]
        assert page.locator("#password").input_value() == "s3cret"  # what was typed is the page's
    finally:
        content.close()


def test_after_the_close_the_thread_runs_asyncio_again(device: LoopbackDevice) -> None:
    # a sync Playwright holds its event loop as the thread's running loop while it lives: a driver kept
    # for the next test made that test's asyncio (pytest-asyncio, the inspector's aiohttp) fail with
    # "Cannot run the event loop while another loop is running"
    first, second = WebContent(device, Steps()), WebContent(device, Steps())
    try:
        first.page(title="Sign in", timeout=20)
        second.page(title="Sign in", timeout=20)  # a second target's content shares the thread's driver
        first.close()
        assert second.pages[0].page.title() == "Sign in"
    finally:
        first.close()
        second.close()
    assert asyncio.run(asyncio.sleep(0, result="ran")) == "ran"


def test_builders_are_not_steps_and_what_they_return_is_traced(
        device: LoopbackDevice, steps: tuple[Steps, StepRecorder]) -> None:
    recorder, recorded = steps
    content = WebContent(device, recorder)
    try:
        page = content.page(title="Sign in", timeout=20)
        field = page.locator("body").get_by_label("Name").first
        page.keyboard.press("Tab")
        field.focus()
        page.keyboard.type("Zoe")
        assert page.main_frame.locator("#who").input_value() == "Zoe"
        assert [step.name for step in recorded.ended] == [
            "keyboard.press", "locator.focus", "keyboard.type", "locator.input_value"]
    finally:
        content.close()


def test_a_socket_that_comes_back_is_attached_anew_and_the_old_bridge_closed(
        chromium_port: int, device: LoopbackDevice) -> None:
    content = WebContent(device, Steps())
    try:
        content.page(title="Sign in", timeout=20)
        [old] = list(content.bridges())
        device.drop(WEBVIEW)
        device.serve(WEBVIEW, chromium_port, 4242, APP)  # the app's process started again
        page = content.page(title="Sign in", timeout=20)
        assert page.title() == "Sign in"
        [new] = list(content.bridges())
        assert new is not old and old.closed and not new.closed
    finally:
        content.close()
    assert not [t for t in threading.enumerate() if t.name.startswith("mobile-agent-web")]
