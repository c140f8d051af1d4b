"""The screen an app's tests need (issue 25), on the full stack through the plugin's fixtures:
actions that wait, watchers, toasts and XPath, on whatever target `--android-serial` names (the
virtual device on both adb fronts in CI)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from pytest_mobile_agent import App, Screen

pytestmark = pytest.mark.device


def test_a_button_that_appears_300_ms_after_a_tab_switch_is_tapped_with_no_explicit_wait(
        compose_fixture: Callable[..., App], screen: Screen) -> None:
    """The fixture app's Login tab shows "Continue as guest" 300 ms after a tap on its tab (as an app
    shows what a request made on the switch brought); on main the tap failed with NoMatch at once."""
    compose_fixture(tab="Big")
    screen.wait_for(id="big_header")
    screen.tap(id="tab_login")
    ack = screen.tap(text="Continue as guest")
    assert ack.accepted


def test_xpath_as_appium_inspector_writes_it_finds_waits_and_taps_on_the_big_tab(
        compose_fixture: Callable[..., App], screen: Screen) -> None:
    compose_fixture(tab="Big")
    cell = screen.wait_for(xpath="//android.widget.TextView[@text='Cell 42']")
    assert cell.text == "Cell 42" and len(screen.find_all(xpath="//*[starts-with(@text, 'Cell ')]")) == 500
    screen.tap(xpath="//android.widget.TextView[@text='Cell 42'][@clickable='true']")
    screen.wait_for(xpath="//*[@text='Cell 42' and @selected='true']", timeout=5)
    assert not screen.exists(xpath="//*[@text='Cell 43' and @selected='true']")
