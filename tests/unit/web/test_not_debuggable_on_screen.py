"""A WebView on the screen whose process serves no DevTools socket, through the whole stack: the
screen sees the `android.webkit.WebView` node, /proc/net/unix lists no socket of its process, and
`screen.web()` says the WebView is not debuggable and what to do, instead of a page not found."""

from __future__ import annotations

import pytest

from pytest_mobile_agent.stack import Settings, open_stack
from pytest_mobile_agent.virtual.ui.fixture import PACKAGE
from pytest_mobile_agent.web.errors import PageNotFound, WebViewNotDebuggable
from tests.support.chromium import needs_chromium
from tests.support.web_peer import NEEDS_PLAYWRIGHT

pytestmark = [needs_chromium, NEEDS_PLAYWRIGHT]


def test_a_webview_on_screen_without_its_socket_is_not_debuggable() -> None:
    with open_stack(Settings.for_target("virtual", emulator_controller="off"), holder="web test") as stack:
        assert stack.target.lab is not None
        vdev = stack.target.lab.device(stack.target.serial)
        stack.device.shell(f"am start -W -S -n {PACKAGE}/.MainActivity")
        screen = stack.screen
        screen.tap(text="Sign in on the web")
        screen.wait_for(text="Continue", timeout=30)  # the page's button, under the WebView node
        [browser] = [b for b in vdev.web.browsers() if b.package == PACKAGE]
        assert browser.listener is not None
        browser.listener.close()  # as a release build's WebView: no webview_devtools_remote_<pid>
        with pytest.raises(WebViewNotDebuggable, match=rf"{PACKAGE} shows a WebView, but no DevTools socket "
                                                       r"of its process .*setWebContentsDebuggingEnabled"):
            screen.web(PACKAGE, timeout=1)
        with pytest.raises(PageNotFound, match="of com.android.chrome"):  # another package's page: not found
            screen.web("com.android.chrome", timeout=0.5)
