"""The windows' text indexes (mirror/text_index.py): a whole view's `text=` and `text_contains=`
queries answered from them give exactly what the compiled loop over every node gives, in its
order; a window the replica kept carries its index into the next generation, a changed one builds
its own."""

from __future__ import annotations

import copy
import gc
import weakref
from collections.abc import Sequence
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_mobile_agent.mirror.replica import Entry, Replica, View
from pytest_mobile_agent.mirror.selectors import Selector
from pytest_mobile_agent.mirror.text_index import BUILD_AFTER_ASKS, DENSE_SHARE, SEPARATOR, TextIndex, usable_needle
from pytest_mobile_agent.session.backends import ReadReason
from pytest_mobile_agent.session.tree import parse_snapshot
from tests.support.session_fakes import node, snapshot, window
from tests.unit.mirror.trees import window_nodes

ALPHABET = ("a", "b", "9", " ", SEPARATOR, "Ü", "✓", "𝒳", "\ud800")
"""Few characters, so that needles meet texts often: Latin-1, wide, astral, a lone surrogate and
the index's own separator."""
POOL = ("", SEPARATOR, f"a{SEPARATOR}b", "a", "9", "Cell 99", "Cell 199", "99", "Ünïcode ✓", "𝒳")
"""Texts drawn often, so that windows hold equal texts next to each other and needles equal to them."""
TEXTS = st.one_of(st.none(), st.sampled_from(POOL), st.text(alphabet=st.sampled_from(ALPHABET), max_size=6))
NEEDLES = st.one_of(st.sampled_from(POOL), st.text(alphabet=st.sampled_from(ALPHABET), max_size=3))


@st.composite
def texted_window(draw: Any, wid: int, first_id: int) -> dict[str, Any]:
    nodes = draw(window_nodes(first_id, max_nodes=40))
    for n in nodes:
        n["text"] = draw(TEXTS)
    return window(wid, nodes)


@st.composite
def screens(draw: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """A snapshot, and the next one: each window kept as it was or drawn again under its id."""
    ids = draw(st.lists(st.sampled_from((5, 7, 12, 31)), min_size=1, max_size=3, unique=True))
    first = [draw(texted_window(wid, 1000 * k)) for k, wid in enumerate(ids)]
    second = [w if draw(st.booleans()) else draw(texted_window(w["id"], 1000 * k + 500))
              for k, w in enumerate(first)]
    return snapshot(*first), snapshot(*copy.deepcopy(second))


@st.composite
def criteria(draw: Any) -> dict[str, Any]:
    wanted: dict[str, Any] = {draw(st.sampled_from(("text", "text_contains"))): draw(NEEDLES)}
    if draw(st.booleans()):
        wanted["text_contains" if "text" in wanted else "text"] = draw(NEEDLES)
    if draw(st.booleans()):
        wanted["clickable"] = draw(st.booleans())
    if draw(st.booleans()):
        wanted["class_name"] = draw(st.sampled_from(("TextView", "android.view.View")))
    return wanted


def apply(replica: Replica, raw: dict[str, Any]) -> View:
    replica.apply(parse_snapshot(raw, scale=2.625, reason=ReadReason.POLL, read_at=0.0))
    assert replica.view is not None
    return replica.view


def loop(selector: Selector, view: View) -> list[Entry]:
    """The plain compiled loop over every entry of the view."""
    return selector.matcher().select(view.entries)


def assert_answers_as_the_loop(selector: Selector, view: View) -> None:
    expected = loop(selector, view)
    for _ in range(BUILD_AFTER_ASKS + 1):  # before the index is built, as it is, and once built
        assert selector.select(view) == expected
        assert selector.first(view) == (expected[0] if expected else None)


@settings(max_examples=150, deadline=None)
@given(screens(), criteria())
def test_a_text_query_answers_as_the_loop_over_every_node_in_both_generations(
        screens: tuple[dict[str, Any], dict[str, Any]], wanted: dict[str, Any]) -> None:
    selector = Selector.of(wanted)
    replica = Replica()
    assert_answers_as_the_loop(selector, apply(replica, screens[0]))
    assert_answers_as_the_loop(selector, apply(replica, screens[1]))  # kept windows' indexes carried


@settings(max_examples=500, deadline=None)
@given(st.lists(TEXTS, max_size=60), NEEDLES)
def test_an_index_answers_with_the_texts_that_contain_or_equal_the_needle_or_not_at_all(
        texts: list[str | None], needle: str) -> None:
    index: TextIndex[int] = TextIndex(range(len(texts)), lambda: texts)
    if not usable_needle(needle):
        return
    for _ in range(BUILD_AFTER_ASKS - 1):  # not built yet: the caller tests the nodes
        assert index.containing(needle) is None
    holds_separator = any(SEPARATOR in t for t in texts if t)
    dense = len([t for t in texts if t]) // DENSE_SHARE  # hits past which the nodes are tested
    contain = [k for k, t in enumerate(texts) if t is not None and needle in t]
    equal = [k for k, t in enumerate(texts) if t == needle]
    for _ in range(2):  # built on the ask above, and once built
        assert index.containing(needle) == (None if holds_separator or len(contain) > dense else contain)
        assert index.equal_to(needle) == (None if holds_separator or len(equal) > dense else equal)


def cells_window(wid: int, first_id: int, texts: Sequence[str | None], *, clickable: bool = True) -> dict[str, Any]:
    nodes = [node(first_id, None, 0)]
    nodes += [node(first_id + k, first_id, 1, text=t, cls="android.widget.TextView", clickable=clickable)
              for k, t in enumerate(texts, start=1)]
    nodes[0]["children"] = [n["id"] for n in nodes[1:]]
    return window(wid, nodes)


def clock(minute: int) -> dict[str, Any]:
    return cells_window(5, 1, [f"12:{minute:02}", "Wi-Fi"], clickable=False)


def app(texts: Sequence[str | None]) -> dict[str, Any]:
    return cells_window(12, 100, texts)


CELLS = [f"Cell {k}" for k in range(1, 200)]


def test_matches_come_top_most_window_first_and_each_window_in_pre_order() -> None:
    view = apply(Replica(), snapshot(cells_window(31, 500, ["b 99", "a 99"]), app(CELLS)))
    selector = Selector.of({"text_contains": "99", "clickable": True})
    for _ in range(BUILD_AFTER_ASKS + 1):
        assert [e.node.text for e in selector.select(view)] == ["b 99", "a 99", "Cell 99", "Cell 199"]
        assert [e.window.id for e in selector.select(view)] == [31, 31, 12, 12]
    assert view.text_indexes[31].built and view.text_indexes[12].built


def test_the_first_query_of_a_window_tests_its_nodes_and_the_second_builds_its_index() -> None:
    view = apply(Replica(), snapshot(app(CELLS)))
    selector = Selector.of({"text": "Cell 150"})
    assert selector.first(view) is not None
    index = view.text_indexes[12]
    assert not index.built  # a window asked once (a wait whose screen changes at each look) builds nothing
    assert [e.node.text for e in selector.select(view)] == ["Cell 150"]
    assert index.built
    assert index.equal_to("Cell 150") == [e for e in view.entries if e.node.text == "Cell 150"]


def test_a_window_the_replica_kept_carries_its_built_index_and_a_changed_one_builds_its_own() -> None:
    replica = Replica()
    selector = Selector.of({"text_contains": "99"})
    before = apply(replica, snapshot(clock(1), app(CELLS)))
    for _ in range(BUILD_AFTER_ASKS):
        selector.select(before)
    app_index, clock_index = before.text_indexes[12], before.text_indexes[5]
    assert app_index.built

    after = apply(replica, snapshot(clock(2), app(CELLS)))  # the clock ticked; the app's window is kept
    assert after.kept == {12}
    assert after.text_indexes[12] is app_index
    assert after.text_indexes[5] is not clock_index and not after.text_indexes[5].built
    assert [e.node.text for e in selector.select(after)] == ["Cell 99", "Cell 199"]
    assert [e.ref for e in selector.select(after)] == [e.ref for e in loop(selector, after)]
    assert after.text_indexes[5].built  # the ticked clock's window built its own on its second ask

    changed = apply(replica, snapshot(clock(2), app([*CELLS[:-1], "Cell 299"])))  # same shape, a text changed
    assert 12 not in changed.kept
    assert changed.text_indexes[12] is not app_index
    for _ in range(BUILD_AFTER_ASKS + 1):
        assert [e.node.text for e in selector.select(changed)] == ["Cell 99", "Cell 299"]
    assert changed.text_indexes[12] is not app_index and changed.text_indexes[12].built


def test_an_index_is_dropped_with_the_last_view_that_holds_it() -> None:
    replica = Replica()
    view = apply(replica, snapshot(app(CELLS)))
    for _ in range(BUILD_AFTER_ASKS):
        Selector.of({"text": "Cell 5"}).select(view)
    gone = weakref.ref(view.text_indexes[12])
    apply(replica, snapshot(app(CELLS[:-1])))  # the app's window changed: its index is not carried
    del view
    gc.collect()
    assert gone() is None


def test_a_window_whose_text_holds_the_separator_is_answered_by_its_nodes() -> None:
    texts: list[str | None] = ["Cell 99", f"nul{SEPARATOR}99", None, "", "Cell 199"]
    view = apply(Replica(), snapshot(app(texts)))
    selector = Selector.of({"text_contains": "99"})
    for _ in range(BUILD_AFTER_ASKS + 1):
        assert [e.node.text for e in selector.select(view)] == ["Cell 99", f"nul{SEPARATOR}99", "Cell 199"]
    assert view.text_indexes[12].containing("99") is None  # the index does not answer for such a window


def built(texts: list[str]) -> TextIndex[str]:
    index: TextIndex[str] = TextIndex(texts, lambda: texts)
    for _ in range(BUILD_AFTER_ASKS):
        index.containing("unasked")
    return index


def test_a_needle_met_in_many_texts_is_answered_by_the_nodes_and_a_rare_one_by_the_index() -> None:
    bound = 80 // DENSE_SHARE  # hits a window of 80 texts may have for the index to answer
    rare = [f"x {k}" if k < bound else f"y {k}" for k in range(80)]
    assert built(rare).containing("x") == rare[:bound]
    assert built(rare).equal_to("x 0") == ["x 0"]
    frequent = [f"x {k}" if k <= bound else f"y {k}" for k in range(80)]
    assert built(frequent).containing("x") is None  # one hit more: testing the nodes is cheaper
    assert built(["x"] * 80).equal_to("x") is None


def test_equal_texts_side_by_side_are_each_found() -> None:
    texts = ["x", "x", "x y", "x", *(f"y {k}" for k in range(36))]  # 40 texts: up to 5 hits answered
    assert built(texts).equal_to("x") == ["x", "x", "x"]
    assert built(texts).containing("x") == ["x", "x", "x y", "x"]


def test_an_empty_needle_or_one_holding_the_separator_never_asks_the_index() -> None:
    view = apply(Replica(), snapshot(app(["", "a", None, f"a{SEPARATOR}b"])))
    for wanted in ({"text": ""}, {"text_contains": ""}, {"text_contains": f"a{SEPARATOR}"}, {"text": SEPARATOR}):
        selector = Selector.of(wanted)
        for _ in range(BUILD_AFTER_ASKS + 1):
            assert selector.select(view) == loop(selector, view)
    assert not any(index.built for index in view.text_indexes.values())


def test_windows_sharing_an_id_are_answered_by_the_loop() -> None:
    twice = app(["Cell 99", "Cell 199"])
    view = apply(Replica(), snapshot(twice, copy.deepcopy(twice)))
    selector = Selector.of({"text_contains": "99"})
    assert view.text_windows is None
    for _ in range(BUILD_AFTER_ASKS + 1):
        assert [e.node.text for e in selector.select(view)] == ["Cell 99", "Cell 199", "Cell 99", "Cell 199"]
