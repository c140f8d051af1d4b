"""The fixture app's Login screen as on a device: a password is dots in every tree, a wrong one
shows an error, and BACK goes where Android sends it (the IME first while it is shown; the alert's
focus hides the IME, so one BACK closes the alert)."""

from __future__ import annotations

import pytest

from pytest_mobile_agent.virtual.ui import EmulatorUi, ManualClock
from pytest_mobile_agent.virtual.ui.attach import DisplayContent
from pytest_mobile_agent.virtual.ui.fixture import COMPOSE_MS, LAUNCH_MS, PASSWORD, WRONG_PASSWORD
from pytest_mobile_agent.virtual.ui.node import Node
from pytest_mobile_agent.virtual.ui.system import KEYCODE_BACK

DOT = "\u2022"


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def ui(clock: ManualClock) -> EmulatorUi:
    ui = EmulatorUi(clock)
    ui.start_app({"tab": "Login"})
    clock.advance(LAUNCH_MS + COMPOSE_MS["Login"] + 1)
    ui.advance()
    return ui


def by_res(ui: EmulatorUi, res: str) -> Node | None:
    return next((n for w in ui.windows() if (n := w.by_res(res)) is not None), None)


def tap(ui: EmulatorUi, res: str) -> None:
    node = by_res(ui, res)
    assert node is not None, res
    x, y = (node.bounds[0] + node.bounds[2]) // 2, (node.bounds[1] + node.bounds[3]) // 2
    ui.touch(x, y, True)
    ui.touch(x, y, False)


def node_dicts(ui: EmulatorUi, res: str) -> list[dict]:
    return [d for w in ui.windows() for d in w.read(lambda: None).nodes if d["res"] == res]


def test_a_password_is_dots_in_the_tree_and_the_dump_never_its_text(ui: EmulatorUi) -> None:
    tap(ui, "password")
    assert ui.type_text("hunter2")
    [field] = node_dicts(ui, "password")
    assert (field["password"], field["text"]) == (True, DOT * 7)  # what the agent, the mirror and artifacts get
    dump = DisplayContent(ui).dump_xml()  # `uiautomator dump`
    assert "hunter2" not in dump and DOT * 7 in dump
    [user] = node_dicts(ui, "username")
    assert user["password"] is False


def test_a_wrong_password_shows_an_error_and_signs_nobody_in(ui: EmulatorUi) -> None:
    ui.set_text(by_res(ui, "username"), "ada")
    ui.set_text(by_res(ui, "password"), "guess")
    tap(ui, "login_button")
    error = by_res(ui, "login_error")
    assert error is not None and error.text == WRONG_PASSWORD
    assert not any(w.modal for w in ui.windows())
    assert by_res(ui, "login_status").text == "Signed out"
    ui.set_text(by_res(ui, "password"), PASSWORD)
    tap(ui, "login_button")
    assert by_res(ui, "login_error") is None
    assert by_res(ui, "alert_message").text == "Welcome, ada"


def test_back_hides_the_keyboard_first_then_reaches_the_app(ui: EmulatorUi) -> None:
    tap(ui, "username")
    assert ui.keyboard_shown
    ui.key(KEYCODE_BACK)  # InputMethodService.handleBack: the IME takes the first BACK
    assert not ui.keyboard_shown and by_res(ui, "login_button") is not None


def test_one_back_closes_the_alert_even_after_typing_with_the_keyboard_up(ui: EmulatorUi) -> None:
    tap(ui, "password")
    assert ui.keyboard_shown and ui.type_text(PASSWORD)
    tap(ui, "login_button")
    assert not ui.keyboard_shown  # the dialog took the focus without an editor: HIDE_UNSPECIFIED_WINDOW
    assert any(w.modal for w in ui.windows())
    ui.key(KEYCODE_BACK)
    assert not any(w.modal for w in ui.windows())
    assert by_res(ui, "login_button") is not None  # the activity is still there
