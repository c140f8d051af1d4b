"""A long press on a text field shows the floating text toolbar with Paste when the clipboard has
text, as TextView and Compose's text fields do, and its Paste pastes (issue 41 item 13: the long
press showed nothing)."""

from __future__ import annotations

from pytest_mobile_agent.virtual.ui import EmulatorUi
from pytest_mobile_agent.virtual.ui.gestures import LONG_PRESS_MS
from pytest_mobile_agent.virtual.ui.node import Node
from pytest_mobile_agent.virtual.ui.text_toolbar import ITEM_TEXT_ID, PASTE
from tests.support.ui_nodes import by_res, composed_on, tap


def long_press(ui: EmulatorUi, node: Node) -> None:
    left, top, right, bottom = node.bounds
    x, y = (left + right) // 2, (top + bottom) // 2
    t0 = ui.clock.now_ms()
    ui.touches([(x, y, True, t0), (x, y, False, t0 + LONG_PRESS_MS + 200)])
    ui.clock.advance(LONG_PRESS_MS + 250)  # type: ignore[attr-defined]
    ui.advance()


def paste_item(ui: EmulatorUi) -> Node | None:
    toolbar = ui.text_toolbar
    return toolbar.by_res(ITEM_TEXT_ID) if toolbar is not None else None


def test_a_long_press_on_a_field_offers_paste_and_paste_pastes_the_clip() -> None:
    ui = composed_on("Login")
    ui.clipboard = "ada"
    field = by_res(ui, "username")
    long_press(ui, field)
    item = paste_item(ui)
    assert item is not None and item.text == PASTE
    toolbar = ui.text_toolbar
    assert toolbar is not None and toolbar.package == "dev.mobileagent.fixture" and toolbar in ui.windows()
    assert field.focused and ui.keyboard in ui.windows(), "the field took the focus, the keyboard came up"
    assert toolbar.bounds[3] <= field.bounds[1], "above the field"
    tap(ui, item)
    assert field.text == "ada"
    assert ui.text_toolbar is None and toolbar not in ui.windows(), "the action mode ended"


def test_with_an_empty_clipboard_a_long_press_shows_no_toolbar_and_a_touch_elsewhere_dismisses_it() -> None:
    ui = composed_on("Login")
    field = by_res(ui, "username")
    long_press(ui, field)
    assert ui.text_toolbar is None and field.focused
    ui.clipboard = "x"
    long_press(ui, field)
    assert ui.text_toolbar is not None
    tap(ui, by_res(ui, "login_heading"))
    assert ui.text_toolbar is None and field.text == "", "dismissed, nothing pasted"


def test_the_password_field_offers_paste_too() -> None:
    """TextView offers Paste in a password field (only Cut and Copy are withheld there)."""
    ui = composed_on("Login")
    ui.clipboard = "correct horse"
    field = by_res(ui, "password")
    long_press(ui, field)
    item = paste_item(ui)
    assert item is not None
    tap(ui, item)
    assert field.text == "correct horse"
