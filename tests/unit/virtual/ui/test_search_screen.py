"""The fixture app's Search screen and the virtual keyboard: the IME window with the field's action
key, its insets padding the results pane, the action running the search, a field it covers."""

from __future__ import annotations

import pytest

from pytest_mobile_agent.virtual.ui import EmulatorUi, ManualClock
from pytest_mobile_agent.virtual.ui.fixture import COMPOSE_MS, LAUNCH_MS, PACKAGE, TABS
from pytest_mobile_agent.virtual.ui.node import Node, Window, node_dict
from pytest_mobile_agent.virtual.ui.search_screen import SCREEN, result_text
from pytest_mobile_agent.virtual.ui.system import KEYCODE_BACK, KEYCODE_ENTER


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def ui(clock: ManualClock) -> EmulatorUi:
    return EmulatorUi(clock)


def search(ui: EmulatorUi, clock: ManualClock) -> Window:
    ui.start_app({"tab": SCREEN})
    clock.advance(LAUNCH_MS + COMPOSE_MS[SCREEN] + 1)
    ui.advance()
    return next(w for w in ui.windows() if w.package == PACKAGE and not w.modal)


def node(window: Window, res: str) -> Node:
    found = window.by_res(res)
    assert found is not None, res
    return found


def tap(ui: EmulatorUi, target: Node) -> None:
    left, top, right, bottom = target.bounds
    x, y = (left + right) // 2, (top + bottom) // 2
    ui.touches([(x, y, True, None), (x, y, False, None)])



def test_the_search_screen_is_off_the_tab_row(ui: EmulatorUi, clock: ManualClock) -> None:
    window = search(ui, clock)
    assert SCREEN not in TABS  # the frame's nodes, and the Big tab's 573, stay as they are
    query = node(window, "search_query")
    assert query.editable and query.ime_action == "search"
    assert node_dict(query, None, 0, [])["ime_action"] == "search"
    assert "ime_action" not in node_dict(node(window, "search_results"), None, 0, [])  # optional: editors only


def test_focusing_the_query_shows_the_keyboard_with_the_search_key_and_pads_the_results(
        ui: EmulatorUi, clock: ManualClock) -> None:
    window = search(ui, clock)
    results = node(window, "search_results")
    full = results.bounds
    tap(ui, node(window, "search_query"))
    assert ui.keyboard_shown
    assert any(n.desc == "Search" for n in ui.keyboard.nodes())  # the action on the enter key
    assert results.bounds[3] == ui.keyboard.bounds[1] < full[3]  # imePadding: the pane ends at the keyboard
    ui.key(KEYCODE_BACK)  # the IME takes the first BACK and hides itself
    assert not ui.keyboard_shown and results.bounds == full


def test_the_keyboards_action_key_runs_the_search(ui: EmulatorUi, clock: ManualClock) -> None:
    window = search(ui, clock)
    query = node(window, "search_query")
    tap(ui, query)
    ui.type_text("kotlin")
    key = next(n for n in ui.keyboard.nodes() if n.desc == "Search")
    tap(ui, key)
    results = node(window, "search_results")
    assert [c.text for c in results.children] == [result_text("kotlin", n) for n in (1, 2, 3)]
    assert not ui.keyboard_shown  # the screen's onSearch hides the keyboard


def test_enter_on_the_query_performs_its_search_action(ui: EmulatorUi, clock: ManualClock) -> None:
    window = search(ui, clock)
    tap(ui, node(window, "search_query"))
    ui.key(KEYCODE_ENTER)
    assert [c.res for c in node(window, "search_results").children] == ["search_empty"]


def test_the_keyboard_covers_the_note_field_and_a_tap_there_lands_on_a_key(ui: EmulatorUi, clock: ManualClock) -> None:
    window = search(ui, clock)
    query, note = node(window, "search_query"), node(window, "search_note")
    tap(ui, query)
    kb = ui.keyboard.bounds
    assert kb[1] <= note.bounds[1] and note.bounds[3] <= kb[3]  # wholly under the keyboard
    tap(ui, note)
    assert query.focused and not note.focused and query.text  # a key typed into the query instead


def test_the_note_field_shows_done_and_done_hides_the_keyboard(ui: EmulatorUi, clock: ManualClock) -> None:
    window = search(ui, clock)
    tap(ui, node(window, "search_note"))
    assert any(n.desc == "Done" for n in ui.keyboard.nodes())
    ui.key(KEYCODE_ENTER)
    assert not ui.keyboard_shown
