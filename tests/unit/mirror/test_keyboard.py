"""`screen.keyboard` on a scripted backend (issue 36, item 2): shown, window and bounds from the
IME's window; hide() sends BACK only while a fresh look shows it and waits until it is gone;
press_action() presses ENTER for the focused editor and reports the action it declares."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_mobile_agent.errors import InvalidArgument, NoMatch, WaitTimeout
from pytest_mobile_agent.mirror.keyboard import KEYCODE_BACK, KEYCODE_ENTER
from tests.support.mirror_fakes import Rig, node, tree, window


def _screen(keyboard: bool, *, focused: bool = True, ime_action: str | None = "search") -> dict[str, Any]:
    field = node(3, 1, 1, cls="android.widget.EditText", bounds=(63, 380, 1017, 527), editable=True,
                 focused=focused, res="search_query")
    if ime_action is not None:
        field["ime_action"] = ime_action
    windows = [window(12, tree(node(1, None, 0), field))]
    if keyboard:
        kb = window(31, tree(node(200, None, 0, bounds=(0, 1530, 1080, 2274))), type="input_method",
                    title="InputMethod", package="com.google.android.inputmethod.latin")
        kb["bounds"] = [0, 1530, 1080, 2274]
        windows.insert(0, kb)
    return {"windows": windows, "node_count": sum(len(w["nodes"]) for w in windows), "truncated": False,
            "idle": {"waited_ms": 0, "idle": True}, "seq": 0,
            "display": {"width": 1080, "height": 2400, "density": 420, "rotation": 0}}


def test_shown_window_and_bounds_follow_the_ime_window() -> None:
    rig = Rig(_screen(keyboard=True))
    keyboard = rig.mirror.keyboard
    assert keyboard.shown and keyboard.bounds == (0, 1530, 1080, 2274)
    assert keyboard.window is not None and keyboard.window.type == "input_method"
    rig.tree.screen = _screen(keyboard=False)
    rig.mirror.invalidate()
    assert not keyboard.shown and keyboard.window is None and keyboard.bounds is None


def test_hide_sends_back_and_waits_until_the_keyboard_is_gone() -> None:
    rig = Rig(_screen(keyboard=True))
    rig.input.on_input = lambda call: setattr(rig.tree, "screen", _screen(keyboard=False))
    assert rig.mirror.keyboard.hide() is True
    assert rig.input.calls == [("key", KEYCODE_BACK, 0)]
    assert not rig.mirror.keyboard.shown


def test_hide_with_no_keyboard_sends_nothing() -> None:
    """BACK with nothing to hide would leave the screen: the look before it is a fresh read."""
    rig = Rig(_screen(keyboard=True))
    rig.mirror.snapshot()
    rig.tree.screen = _screen(keyboard=False)  # gone meanwhile, with no event seen
    assert rig.mirror.keyboard.hide() is False
    assert rig.input.calls == []


def test_a_keyboard_that_stays_after_back_is_a_wait_timeout_saying_so() -> None:
    rig = Rig(_screen(keyboard=True))
    with pytest.raises(WaitTimeout, match="the keyboard is still shown after BACK"):
        rig.mirror.keyboard.hide(timeout=0.5)
    assert rig.input.calls == [("key", KEYCODE_BACK, 0)]


def test_press_action_performs_ime_enter_through_the_agent_where_the_field_offers_it() -> None:
    rig = Rig(_screen(keyboard=True))
    rig.input.ime_offered = True
    pressed = rig.mirror.keyboard.press_action()
    assert (pressed.action, pressed.via, pressed.ack.accepted) == ("search", "ime_enter", True)
    assert rig.input.calls == [("ime_enter", 3)]  # the focused field's node, no ENTER


def test_press_action_presses_enter_where_ime_enter_is_not_offered() -> None:
    rig = Rig(_screen(keyboard=True))
    pressed = rig.mirror.keyboard.press_action()
    assert (pressed.action, pressed.via, pressed.ack.accepted) == ("search", "enter_key", True)
    assert rig.input.calls == [("key", KEYCODE_ENTER, 0)]
    rig.tree.screen = _screen(keyboard=True, ime_action=None)  # an agent that does not say
    assert rig.mirror.keyboard.press_action().action is None


def test_press_action_with_no_focused_editor_says_what_to_do() -> None:
    rig = Rig(_screen(keyboard=False, focused=False))
    with pytest.raises(NoMatch, match="no editable field has the input focus.*tap the field first"):
        rig.mirror.keyboard.press_action()
    assert rig.input.calls == []


def test_type_text_submit_types_then_presses_the_action_and_takes_only_a_bool() -> None:
    rig = Rig(_screen(keyboard=True))
    rig.mirror.type_text("kotlin", submit=True)
    assert [c[0] for c in rig.input.calls] == ["text", "key"] and rig.input.calls[-1][1] == KEYCODE_ENTER
    with pytest.raises(InvalidArgument, match="submit= takes a bool"):
        rig.mirror.type_text("kotlin", submit="yes")  # type: ignore[arg-type]
