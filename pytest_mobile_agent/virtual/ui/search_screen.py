"""The fixture app's Search screen: a search field whose IME action is "search", the results the
action shows, and a note field pinned to the bottom that the keyboard covers.

`am start -n dev.mobileagent.fixture/.MainActivity --es tab Search` opens it (not in the tab row:
the frame's nodes, and the Big tab's 573, stay as they are). As a Compose screen of an app drawn
edge to edge (ui/ime.py):

* the query field (`search_query`) declares `ImeAction.Search`; its `KeyboardActions(onSearch)`
  shows the results for the text typed (`search_result_N`, or `search_empty` for no text) and hides
  the keyboard (`LocalSoftwareKeyboardController.hide()`), as search screens do;
* the results pane (`search_results`) pads for the keyboard (`Modifier.imePadding()`): while the
  keyboard shows, its bottom is the keyboard's top;
* the note field (`search_note`, `ImeAction.Done`) is pinned to the bottom without that padding,
  so the keyboard covers it: a tap aimed at it that does not first get the keyboard out of the way
  lands on the keyboard's keys.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from pytest_mobile_agent.virtual.ui.node import Bounds, Node

if TYPE_CHECKING:
    from pytest_mobile_agent.virtual.ui.model import UiModel

SCREEN = "Search"
RESULTS = 3
"""Results a search shows for any text (the fixture's catalogue answers every query alike)."""
FIELD_HEIGHT = 147
RESULT_HEIGHT = 126


def result_text(query: str, n: int) -> str:
    return f"{query} result {n}"


def search_screen(model: UiModel, screen: Node, alive: Callable[[], bool],
                  changed: Callable[[list[Node]], None]) -> None:
    """Compose the Search screen into `screen`; `changed(nodes)` reports a change of structure,
    `alive()` says whether the screen is still the one shown."""
    geo = model.geo
    left, top, right, bottom = screen.bounds
    inset = geo.dp(24)
    x0, x1 = left + inset, right - inset
    y = top + 44
    query = screen.add(Node("android.widget.EditText", (x0, y, x1, y + FIELD_HEIGHT), text="", hint="Search",
                            res="search_query", clickable=True, focusable=True, editable=True,
                            long_clickable=True, accepts_set_text=True, ime_action="search"))
    y += FIELD_HEIGHT + 40
    note_top = bottom - 40 - FIELD_HEIGHT
    results = screen.add(Node("android.view.View", (x0, y, x1, note_top - 40), res="search_results"))
    note = screen.add(Node("android.widget.EditText", (x0, note_top, x1, note_top + FIELD_HEIGHT), text="",
                           hint="Add a note", res="search_note", clickable=True, focusable=True, editable=True,
                           long_clickable=True, accepts_set_text=True, ime_action="done"))
    for field in (query, note):
        field.on_click = (lambda f=field: model.focus(f))
    full_bottom = results.bounds[3]

    def pad_for_keyboard(keyboard: Bounds | None) -> bool:
        """Modifier.imePadding(): the pane ends at the keyboard's top while it shows."""
        if not alive():
            return False
        end = full_bottom if keyboard is None else min(full_bottom, keyboard[1])
        x, y, w, _ = results.bounds
        results.bounds = (x, y, w, max(y, end))
        changed([results])
        return True

    def search(action: str) -> None:
        """KeyboardActions(onSearch): show the results, hide the keyboard."""
        text = query.text or ""
        x, y, w, _ = results.bounds
        results.children = []
        if not text:
            results.add(Node("android.widget.TextView", (x, y, w, y + RESULT_HEIGHT), text="Type something to search",
                             res="search_empty"))
        for n in range(1, RESULTS + 1) if text else ():
            row = y + (n - 1) * RESULT_HEIGHT
            results.add(Node("android.widget.TextView", (x, row, w, row + RESULT_HEIGHT),
                             text=result_text(text, n), res=f"search_result_{n}", clickable=True, focusable=True))
        changed([results])
        model.hide_keyboard()

    query.on_editor_action = search
    model.ime_insets.add(pad_for_keyboard)
    if model.keyboard_shown:
        pad_for_keyboard(model.keyboard.bounds)
