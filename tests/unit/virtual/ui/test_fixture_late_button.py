"""The fixture app's late button (issue 25, item 1): after a tap on the Login tab, "Continue as
guest" appears LATE_BUTTON_MS after the screen is composed, as an app shows what a request made on
the switch brought; the app's start shows no such button. Tapping it shows a toast."""

from __future__ import annotations

from pytest_mobile_agent.virtual.ui import EmulatorUi, ManualClock
from pytest_mobile_agent.virtual.ui.fixture import (
    COMPOSE_MS,
    GUEST_TOAST,
    LATE_BUTTON_MS,
    LAUNCH_MS,
    PACKAGE,
)
from pytest_mobile_agent.virtual.ui.toasts import TOAST_CLASS, ToastEvent
from tests.unit.virtual.ui.test_fixture_login import by_res, tap


def test_the_late_button_appears_300_ms_after_the_login_tab_is_tapped_and_shows_a_toast() -> None:
    clock = ManualClock()
    ui = EmulatorUi(clock)
    ui.start_app({"tab": "Big"})
    clock.advance(LAUNCH_MS + COMPOSE_MS["Big"] + 1)
    ui.advance()
    tap(ui, "tab_login")
    clock.advance(COMPOSE_MS["Login"] + 1)
    ui.advance()
    assert by_res(ui, "username") is not None and by_res(ui, "late_button") is None
    clock.advance(LATE_BUTTON_MS - 2)
    ui.advance()
    assert by_res(ui, "late_button") is None
    clock.advance(2)
    ui.advance()
    button = by_res(ui, "late_button")
    assert button is not None and button.text == "Continue as guest" and button.clickable
    toasts: list[ToastEvent] = []
    ui.toasts.subscribe(toasts.append)
    tap(ui, "late_button")
    assert toasts == [ToastEvent(PACKAGE, GUEST_TOAST, TOAST_CLASS, clock.now_ms())]


def test_the_apps_start_on_login_shows_no_late_button() -> None:
    clock = ManualClock()
    ui = EmulatorUi(clock)
    ui.start_app({"tab": "Login"})
    clock.advance(LAUNCH_MS + COMPOSE_MS["Login"] + LATE_BUTTON_MS + 10)
    ui.advance()
    assert by_res(ui, "username") is not None and by_res(ui, "late_button") is None
