"""The login flow: fields, the keyboard, the in-app alert, the status line."""

from __future__ import annotations

from collections.abc import Callable

from pytest_mobile_agent.mirror import Mirror


def test_signing_in_greets_the_user_and_updates_the_status(on_tab: Callable[[str], Mirror]) -> None:
    screen = on_tab("Login")
    assert screen.find(id="login_status").text == "Signed out"

    screen.find(id="username").type_text("ada")
    screen.find(id="password").type_text("correct horse")
    screen.find(text="Login", class_name="android.widget.Button").tap()

    alert = screen.wait_for(id="alert_message", timeout=5)
    assert alert.text == "Welcome, ada"
    screen.find(id="alert_ok").tap()
    screen.wait_gone(id="alert", timeout=5)
    assert screen.wait_for(text="Signed in as ada", timeout=5).resource_id == "login_status"


def test_focusing_a_field_brings_up_the_keyboard(on_tab: Callable[[str], Mirror]) -> None:
    screen = on_tab("Login")
    screen.find(id="username").tap()
    keyboard = screen.wait_for(timeout=5, window="input_method")
    assert keyboard.window.type == "input_method"


def test_text_no_keyboard_can_type_still_arrives(on_tab: Callable[[str], Mirror]) -> None:
    screen = on_tab("Login")
    field = screen.find(id="username")
    field.type_text("Zoë 👋")
    assert screen.wait_for(text="Zoë 👋", timeout=5).resource_id == "username"
