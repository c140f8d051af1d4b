"""The receives-touch check (issue 36, item 3): an action's point lies in its element's visible part
with no window above over it. The keyboard is scrolled clear of, or hidden (BACK, once); a dialog or
an overlay is waited out, and the timeout names its window and node; a touch-modal window above
takes every touch; `tap_at` stays raw."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_mobile_agent.errors import WaitTimeout
from pytest_mobile_agent.mirror.keyboard import KEYCODE_BACK
from pytest_mobile_agent.session.backends import ProtocolEvent
from tests.support.mirror_fakes import Rig, node, tree, window

KEYBOARD_TOP = 1530


def _keyboard() -> dict[str, Any]:
    kb = window(31, tree(node(200, None, 0, bounds=(0, KEYBOARD_TOP, 1080, 2274)),
                         node(201, 200, 1, cls="android.widget.FrameLayout", desc="q", clickable=True,
                              bounds=(0, KEYBOARD_TOP + 12, 108, KEYBOARD_TOP + 156))),
                type="input_method", title="InputMethod", package="com.google.android.inputmethod.latin")
    kb["bounds"] = [0, KEYBOARD_TOP, 1080, 2274]
    return kb


def _screen(*windows: dict[str, Any]) -> dict[str, Any]:
    return {"windows": list(windows), "node_count": sum(len(w["nodes"]) for w in windows), "truncated": False,
            "idle": {"waited_ms": 0, "idle": True}, "seq": 0,
            "display": {"width": 1080, "height": 2400, "density": 420, "rotation": 0}}


def _form(note_top: int = 2087, *, scrollable: bool = False) -> dict[str, Any]:
    """A query field at the top and a note field at `note_top`, in a scrolling column or pinned."""
    scroll = {"horizontal": False, "vertical": True, "can_back": True, "can_forward": True, "items": None,
              "first": None, "last": None} if scrollable else None
    return window(12, tree(
        node(1, None, 0),
        node(2, 1, 1, bounds=(0, 336, 1080, 2274), scrollable=scrollable, scroll=scroll),
        node(3, 2, 2, cls="android.widget.EditText", bounds=(63, 380, 1017, 527), editable=True, focused=True,
             clickable=True, res="search_query"),
        node(4, 2, 2, cls="android.widget.EditText", bounds=(63, note_top, 1017, note_top + 147), editable=True,
             clickable=True, res="search_note"),
    ))


def test_a_field_the_keyboard_covers_with_nothing_to_scroll_gets_back_once_and_then_the_tap() -> None:
    rig = Rig(_screen(_keyboard(), _form()))

    def keyboard_hides(call: tuple[Any, ...]) -> None:
        if call == ("key", KEYCODE_BACK, 0):
            rig.tree.screen = _screen(_form())

    rig.input.on_input = keyboard_hides
    rig.mirror.tap(id="search_note")
    assert [c[0] for c in rig.input.calls] == ["key", "tap"] and rig.input.calls[0][1] == KEYCODE_BACK
    _, x, y = rig.input.calls[-1]
    assert 2087 <= y < 2234  # on the field, where the keyboard was


def test_back_is_sent_once_even_when_the_keyboard_stays() -> None:
    """A second BACK, once the keyboard went, would leave the screen: one per action, then the
    wait's timeout names the keyboard and the key under the aim."""
    rig = Rig(_screen(_keyboard(), _form()))
    with pytest.raises(WaitTimeout) as caught:
        rig.mirror.tap(id="search_note", timeout=1.0)
    assert [c[0] for c in rig.input.calls] == ["key"]
    message = str(caught.value)
    assert "it is covered by the window 'InputMethod' (com.google.android.inputmethod.latin)" in message
    assert "it stayed after the BACK that was to hide it" in message


def test_a_field_the_keyboard_covers_in_a_scrolling_column_is_scrolled_above_the_keyboard() -> None:
    rig = Rig(_screen(_keyboard(), _form(scrollable=True)))
    note_top = [2087]

    def scrolled(call: tuple[Any, ...]) -> None:
        if call[0] == "swipe":
            _, _, y1, _, y2, _, _ = call
            note_top[0] += round(y2 - y1)
            rig.tree.screen = _screen(_keyboard(), _form(note_top[0], scrollable=True))

    rig.input.on_input = scrolled
    rig.mirror.tap(id="search_note")
    kinds = [c[0] for c in rig.input.calls]
    assert "key" not in kinds and "swipe" in kinds and kinds[-1] == "tap"  # scrolled, the keyboard stays
    swipe = next(c for c in rig.input.calls if c[0] == "swipe")
    assert swipe[4] < swipe[2] and swipe[2] < KEYBOARD_TOP  # the finger went up, above the keyboard
    _, _, y = rig.input.calls[-1]
    assert y < KEYBOARD_TOP


def _overlay(modal: bool = False, bounds: tuple[int, int, int, int] = (0, 1900, 1080, 2274)) -> dict[str, Any]:
    w = window(40, tree(node(300, None, 0, bounds=bounds),
                        node(301, 300, 1, cls="android.widget.Button", text="Dismiss", clickable=True,
                             bounds=bounds)),
               title="Snackbar", package="com.example.overlay")
    w["bounds"] = list(bounds)
    w["modal"] = modal
    return w


def test_a_field_under_an_overlay_is_waited_for_and_the_timeout_names_the_window_and_its_node() -> None:
    rig = Rig(_screen(_overlay(), _form()))
    with pytest.raises(WaitTimeout) as caught:
        rig.mirror.tap(id="search_note", timeout=0.5)
    message = str(caught.value)
    assert "it is covered by the window 'Snackbar' (com.example.overlay), whose node @" in message
    assert 'Button "Dismiss"' in message and "is at (540, 2160.5)" in message
    assert rig.input.calls == []  # no BACK for what is not the keyboard, no tap on the overlay


def test_an_overlay_dismissed_meanwhile_lets_the_tap_through() -> None:
    rig = Rig(_screen(_overlay(), _form()))
    at = rig.clock.now + 0.4
    rig.events.at(at, ProtocolEvent(seq=1, name="windows_changed", data={"windows": [12]}, received_at=at))
    rig.tree.on_read = lambda n: setattr(rig.tree, "screen", _screen(_form())) if n >= 2 else None
    rig.mirror.tap(id="search_note")
    assert [c[0] for c in rig.input.calls] == ["tap"]


def test_a_touch_modal_window_above_takes_the_touches_outside_its_bounds_too() -> None:
    rig = Rig(_screen(_overlay(modal=True, bounds=(100, 1000, 980, 1400)), _form()))
    with pytest.raises(WaitTimeout, match="it is covered by the window 'Snackbar'"):
        rig.mirror.tap(id="search_query", timeout=0.3)  # [63,380][1017,527]: clear of the dialog's bounds
    assert rig.input.calls == []


def test_tap_at_stays_raw() -> None:
    rig = Rig(_screen(_keyboard(), _form()))
    rig.mirror.tap_at(540, 2160)
    assert rig.input.calls == [("tap", 540, 2160)]
