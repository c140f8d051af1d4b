"""The nearest candidates of a failed query (the message of NoMatch and WaitTimeout) rank every
node by rapidfuzz's full ratio (issue 28, item 11): no time budget, no cheap likeness past it, so
the ranking is the same on a loaded host as on an idle one."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from pytest_mobile_agent.errors import NoMatch
from pytest_mobile_agent.mirror.replica import Replica, View
from pytest_mobile_agent.mirror.selectors import LIKENESS_CHARS, Selector, nearest
from pytest_mobile_agent.session.backends import ReadReason
from pytest_mobile_agent.session.tree import parse_snapshot
from tests.support.mirror_fakes import Rig, node, tree, window

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "benches"))
from trees import big_tab  # noqa: E402 - the Big tab's shape, as the benches grow it


def cells(count: int, text: str = "Cell {}") -> View:
    nodes = [node(1, None, 0), *(node(k + 2, 1, 1, text=text.format(k + 1), cls="android.widget.TextView",
                                       bounds=(0, k, 100, k + 10)) for k in range(count))]
    raw = {"windows": [window(12, tree(*nodes))], "node_count": len(nodes), "truncated": False,
           "idle": {"waited_ms": 0, "idle": True}, "seq": 0,
           "display": {"width": 1080, "height": 2400, "density": 420, "rotation": 0}}
    return view_of(raw)


def view_of(raw: dict) -> View:
    replica = Replica()
    replica.apply(parse_snapshot(raw, scale=2.625, reason=ReadReason.POLL, read_at=0.0))
    assert replica.view is not None
    return replica.view


def texts(found: list[str]) -> list[str]:
    return [line.split('"')[1] for line in found]


def test_on_the_big_tab_cell_5000_lists_cell_500_before_cell_50() -> None:
    """The fallback past the 15 ms budget scored the cells after it cheaply: "Cell 50" came first
    and "Cell 500", the last cell, not at all."""
    view = view_of(big_tab(573))
    found = nearest(Selector(text="Cell 5000"), view)
    assert texts(found)[:2] == ["Cell 500", "Cell 50"]
    assert found[0].endswith("(likeness 0.94)") and found[1].endswith("(likeness 0.88)")


def test_a_big_tree_is_ranked_in_full_and_quickly() -> None:
    view = view_of(big_tab(5000))
    started = time.perf_counter()
    found = nearest(Selector(text="Cell 4488x"), view)
    took = time.perf_counter() - started
    assert texts(found)[0] == "Cell 4488"  # the last cell, past where a budget would have run out
    assert took < 1.0  # the bound itself is host-gated in tests/faults/test_long_selectors.py; this is a sanity cap


def test_a_node_holding_the_text_scores_at_least_0_8() -> None:
    found = nearest(Selector(text="Cell"), cells(3, text="Cell number {} of a long list"))
    assert len(found) == 3 and all(line.endswith("(likeness 0.80)") for line in found)


def test_equal_likeness_keeps_tree_order_and_the_limit() -> None:
    found = nearest(Selector(text="Cell 7x"), cells(9))
    assert texts(found) == ["Cell 7", "Cell 1", "Cell 2", "Cell 3", "Cell 4"]
    assert len(nearest(Selector(text="Cell 7x"), cells(9), limit=2)) == 2


def test_a_long_text_on_either_side_is_compared_by_its_start_only() -> None:
    long = "x" * 50_000
    found = nearest(Selector(text=long), cells(5, text=long + " {}"))
    assert len(found) == 5 and all("likeness 1.00" in line for line in found)  # the capped starts agree
    assert LIKENESS_CHARS < 50_000


def test_every_text_of_a_node_counts_ids_and_descriptions_too() -> None:
    view = view_of(big_tab(573))
    assert texts(nearest(Selector(id="cell_50"), view))[0] == "Cell 50"


def test_state_only_selectors_count_the_criteria_met() -> None:
    found = nearest(Selector(clickable=True, class_name="TextView"), cells(3))
    assert len(found) == 3 and all("likeness 0.50" in line for line in found)


def test_no_view_and_nothing_alike_give_no_candidates() -> None:
    assert nearest(Selector(text="x"), None) == []
    assert nearest(Selector(text="qqqq"), cells(3)) == []


def test_no_match_carries_the_ranked_candidates() -> None:
    with pytest.raises(NoMatch) as failed:
        Rig(big_tab(573)).mirror.find(text="Cell 5000")
    assert '"Cell 500"' in failed.value.candidates[0] and '"Cell 50"' in failed.value.candidates[1]


def test_typographic_quotes_are_as_close_as_plain_ones() -> None:
    """The device's strings use ’ (PermissionController's "Don’t allow"); a selector written with '
    must find it first, ahead of texts that merely share words."""
    nodes = [node(1, None, 0), node(2, 1, 1, text="Allow", cls="android.widget.Button", bounds=(0, 0, 100, 10)),
             node(3, 1, 1, text="Don’t allow", cls="android.widget.Button", bounds=(0, 10, 100, 20)),
             node(4, 1, 1, text="“Quoted”", cls="android.widget.TextView", bounds=(0, 20, 100, 30))]
    view = view_of({"windows": [window(12, tree(*nodes))], "node_count": 4, "truncated": False,
                    "idle": {"waited_ms": 0, "idle": True}, "seq": 0,
                    "display": {"width": 1080, "height": 2400, "density": 420, "rotation": 0}})
    found = nearest(Selector(text="Don't allow"), view)
    assert texts(found)[0] == "Don’t allow" and found[0].endswith("(likeness 1.00)")
    assert nearest(Selector(text='"Quoted"'), view)[0].endswith("(likeness 1.00)")
