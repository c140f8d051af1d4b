"""The web sign-in seen through the driver's own screen, as a test on the virtual device sees it
(`--android-serial virtual`): the web page's text is found among the native nodes, under the
WebView, and the greeting comes back natively."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from pytest_mobile_agent.mirror import Mirror
from pytest_mobile_agent.plugin.fixtures import FixtureApp
from tests.support.chromium import needs_chromium

pytestmark = [needs_chromium, pytest.mark.device]


def test_web_text_is_found_on_the_screen_under_the_webview(compose_fixture: Callable[..., FixtureApp],
                                                           screen: Mirror) -> None:
    compose_fixture(tab="Login")
    screen.wait_for(id="screen_login", timeout=10)
    screen.find(text="Sign in on the web").tap()
    heading = screen.wait_for(text="Sign in", timeout=20)
    webview = screen.find(class_name="android.webkit.WebView", id="web_sign_in")
    left, top, right, bottom = webview.bounds
    assert left <= heading.bounds[0] and heading.bounds[2] <= right
    assert top <= heading.bounds[1] and heading.bounds[3] <= bottom
    field = screen.find(class_name="android.widget.EditText", within=webview)
    assert field.hint == "Your name"
    field.type_text("Ada")  # ACTION_SET_TEXT on the web field: the page's value
    screen.find(text="Continue", class_name="android.widget.Button").tap()
    assert screen.wait_for(id="alert_message", timeout=10).text == "Welcome, Ada"
    screen.find(id="alert_ok").tap()
    assert screen.wait_for(text="Signed in as Ada", timeout=5).resource_id == "login_status"
