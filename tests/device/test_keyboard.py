"""The soft keyboard (issue 36, items 2 and 3) on the full stack through the plugin's fixtures: it
reports shown and hidden, hides as the platform hides it, presses the field's IME action, and an
action aimed at an element it covers gets it out of the way first (the virtual device's Search
screen: virtual/ui/search_screen.py)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from pytest_mobile_agent import App, Screen

pytestmark = pytest.mark.device


def _search_screen(compose_fixture: Callable[..., App], screen: Screen) -> None:
    compose_fixture(tab="Search")
    screen.wait_for(id="search_query")


def test_the_keyboard_reports_shown_and_hidden_and_hide_hides_it(
        compose_fixture: Callable[..., App], screen: Screen) -> None:
    _search_screen(compose_fixture, screen)
    assert not screen.keyboard.shown and screen.keyboard.window is None and screen.keyboard.bounds is None
    results = screen.find(id="search_results").bounds
    screen.tap(id="search_query")
    screen.wait_until(lambda view: screen.keyboard.window, what="the keyboard")
    window = screen.keyboard.window
    assert window is not None and window.type == "input_method"
    bounds = screen.keyboard.bounds
    assert bounds is not None and bounds[1] < results[3] <= bounds[3]
    # the results pane pads for the keyboard: it now ends at the keyboard's top
    assert screen.wait_for(id="search_results").bounds[3] == bounds[1]
    assert screen.keyboard.hide() is True
    assert not screen.keyboard.shown
    assert screen.find(id="search_results").bounds == results
    assert screen.keyboard.hide() is False  # nothing to hide: no BACK, the screen stays
    assert screen.exists(id="search_query")


def test_press_action_runs_the_search_and_reports_the_declared_action(
        compose_fixture: Callable[..., App], screen: Screen) -> None:
    _search_screen(compose_fixture, screen)
    screen.type_text("espresso", id="search_query")
    assert not screen.exists(id="search_result_1")
    pressed = screen.keyboard.press_action()
    assert pressed.action == "search" and pressed.via == "ime_enter" and pressed.ack.accepted
    assert screen.wait_for(id="search_result_1").text == "espresso result 1"


def test_type_text_with_submit_types_then_searches(compose_fixture: Callable[..., App], screen: Screen) -> None:
    _search_screen(compose_fixture, screen)
    screen.type_text("kotlin", id="search_query", submit=True)
    assert screen.wait_for(id="search_result_3").text == "kotlin result 3"


def test_a_tap_on_a_field_under_the_keyboard_lands_on_the_field(
        compose_fixture: Callable[..., App], screen: Screen) -> None:
    """The note field is pinned to the bottom without imePadding: the keyboard the query brought up
    covers it. The tap hides the keyboard (nothing scrolls the field clear) and lands on the field;
    a tap at the field's centre with the keyboard up would have typed a key into the query."""
    _search_screen(compose_fixture, screen)
    screen.tap(id="search_query")
    screen.wait_until(lambda view: screen.keyboard.window, what="the keyboard")
    assert screen.tap(id="search_note").accepted
    assert screen.wait_for(id="search_note", focused=True)
    assert screen.find(id="search_query").text == ""  # no key of the keyboard was pressed


def test_a_tap_on_a_button_under_the_keyboard_on_the_login_tab_lands_on_the_button(
        compose_fixture: Callable[..., App], screen: Screen) -> None:
    """The Login tab, as on main: with the keyboard up for the user name, "Continue as guest" lies
    wholly under it. On main the tap waited for it to be uncovered and failed with WaitTimeout ("it
    is covered by the window 'InputMethod'"); now the keyboard is hidden and the button tapped."""
    compose_fixture(tab="Big")
    screen.wait_for(id="big_header")
    screen.tap(id="tab_login")
    screen.wait_for(text="Continue as guest")
    screen.tap(id="username")
    screen.wait_for(package="com.google.android.inputmethod.latin", desc="shift")  # the keyboard is up
    assert screen.tap(text="Continue as guest", timeout=3).accepted
    assert screen.wait_for_toast("Continuing as guest")
    assert screen.find(id="username").text == ""
