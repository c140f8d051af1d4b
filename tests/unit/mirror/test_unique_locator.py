"""The shortest locator that finds one element alone: on the agent double's Big tab (573 nodes, 500
cells) and on trees made to need each step of the search (pairs, the window, an ancestor, an index).

Each locator is checked the way a user would use it: its line of Python is evaluated against a
screen that answers `find` and `find_all` with the selectors' own matching."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from pytest_mobile_agent.errors import NoMatch
from pytest_mobile_agent.mirror.replica import Entry, Replica, View
from pytest_mobile_agent.mirror.selectors import Selector
from pytest_mobile_agent.mirror.unique import Locator, unique_locator
from pytest_mobile_agent.session.backends import ReadReason
from pytest_mobile_agent.session.tree import parse_snapshot
from pytest_mobile_agent.virtual.kernel.streams import Kernel
from pytest_mobile_agent.virtual.ui import EmulatorUi as UiModel
from tests.support.agent_host import Host, make_core, on_tab
from tests.support.mirror_fakes import node, tree, view_of, window


def view_of_snapshot(raw: dict[str, Any]) -> View:
    replica = Replica()
    replica.apply(parse_snapshot(raw, scale=2.625, reason=ReadReason.POLL, read_at=0.0))
    assert replica.view is not None
    return replica.view


class Screen:
    """`find` and `find_all` as the mirror answers them, on a fixed view, returning entries."""

    def __init__(self, view: View) -> None:
        self.view = view

    def find(self, **criteria: Any) -> Entry:
        criteria = self._anchored(criteria)
        found = Selector.of(criteria).first(self.view)
        if found is None:
            raise NoMatch(f"no element matches {criteria}")
        return found

    def find_all(self, **criteria: Any) -> list[Entry]:
        return Selector.of(self._anchored(criteria)).select(self.view)

    @staticmethod
    def _anchored(criteria: dict[str, Any]) -> dict[str, Any]:
        if isinstance(criteria.get("within"), Entry):
            criteria["within"] = criteria["within"].ref
        return criteria


def finds_it_alone(view: View, entry: Entry, locator: Locator) -> bool:
    """The pasted line finds the entry, and its criteria match no other node unless it is indexed."""
    pasted = eval(locator.python(), {"screen": Screen(view)})  # noqa: S307 - our own generated line
    return pasted == entry and locator.resolve(view) == entry


@pytest.fixture(scope="module")
def big_tab() -> Iterator[View]:
    ui = UiModel()
    core, _ = make_core(ui)
    host = Host(core, Kernel())
    try:
        host.handshake()
        on_tab(ui, "Big")
        yield view_of_snapshot(host.result("snapshot"))
    finally:
        host.close()
        core.stop()


def test_each_of_the_big_tabs_500_cells_gets_a_locator_that_finds_exactly_it(big_tab: View) -> None:
    cells = [e for e in big_tab.entries if (e.node.res or "").startswith("cell_")]
    assert len(cells) == 500 and big_tab.node_count == 573
    for cell in cells:
        locator = unique_locator(big_tab, cell)
        assert locator.python() == f'screen.find(id="{cell.node.res}")'
        assert finds_it_alone(big_tab, cell, locator)


def test_every_node_of_the_big_tab_gets_a_locator_that_finds_it(big_tab: View) -> None:
    for entry in big_tab.entries:
        assert finds_it_alone(big_tab, entry, unique_locator(big_tab, entry)), entry


def test_a_text_shared_by_two_classes_is_singled_out_by_text_and_class() -> None:
    nodes = tree(node(1, None, 0),
                 node(2, 1, 1, text="Login", cls="android.widget.TextView", bounds=(0, 0, 10, 10)),
                 node(3, 1, 1, text="Login", cls="android.widget.Button", bounds=(0, 20, 10, 30)),
                 node(4, 1, 1, text="Help", cls="android.widget.Button", bounds=(0, 40, 10, 50)))
    view = view_of(window(7, nodes))
    button = next(e for e in view.entries if e.node.text == "Login" and e.node.class_name.endswith("Button"))
    locator = unique_locator(view, button)
    assert locator.python() == 'screen.find(text="Login", class_name="Button")'
    assert finds_it_alone(view, button, locator)


def test_uniqueness_is_across_every_window_and_the_window_names_it_when_nothing_else_does() -> None:
    app = window(7, tree(node(1, None, 0), node(2, 1, 1, text="1", bounds=(0, 0, 10, 10))))
    keyboard = window(9, tree(node(11, None, 0, package="com.android.inputmethod"),
                              node(12, 11, 1, text="1", bounds=(0, 900, 10, 910), package="com.android.inputmethod")),
                      type="input_method", package="com.android.inputmethod")
    keyboard["title"] = "Keyboard"
    view = view_of(keyboard, app)
    key = next(e for e in view.entries if e.node.text == "1" and e.window.type == "input_method")
    locator = unique_locator(view, key)
    assert locator.python() == 'screen.find(text="1", window="input_method")'
    assert finds_it_alone(view, key, locator)


def test_a_node_like_others_in_every_way_is_found_within_its_uniquely_found_ancestor() -> None:
    nodes = tree(node(1, None, 0),
                 node(2, 1, 1, res="dev.mobileagent.fixture:id/first", bounds=(0, 0, 100, 100)),
                 node(3, 2, 2, text="OK", bounds=(0, 0, 10, 10)),
                 node(4, 1, 1, res="dev.mobileagent.fixture:id/second", bounds=(0, 200, 100, 300)),
                 node(5, 4, 2, text="OK", bounds=(0, 200, 10, 210)))
    view = view_of(window(7, nodes))
    second_ok = [e for e in view.entries if e.node.text == "OK"][1]
    locator = unique_locator(view, second_ok)
    assert locator.python() == 'screen.find(text="OK", within=screen.find(id="second"))'
    assert finds_it_alone(view, second_ok, locator)


def test_twins_in_every_respect_are_told_apart_by_their_place_among_the_matches() -> None:
    nodes = tree(node(1, None, 0), *(node(k, 1, 1, text="Row", bounds=(0, k, 10, k + 5)) for k in (2, 3, 4)))
    view = view_of(window(7, nodes))
    third = [e for e in view.entries if e.node.text == "Row"][2]
    locator = unique_locator(view, third)
    assert locator.python() == 'screen.find_all(text="Row")[2]'
    assert finds_it_alone(view, third, locator)


@pytest.mark.parametrize("text", ['say "hi"', "it's", "both ' and \"", "back\\slash", "new\nline", "naïve ✓"])
def test_the_pasted_line_quotes_any_text_so_that_it_finds_the_node(text: str) -> None:
    view = view_of(window(7, tree(node(1, None, 0), node(2, 1, 1, text=text, bounds=(0, 0, 10, 10)))))
    entry = next(e for e in view.entries if e.node.text == text)
    locator = unique_locator(view, entry)
    assert locator.criteria == (("text", text),)
    assert finds_it_alone(view, entry, locator)
