"""The speed work of issue 17 changes no result: selectors compiled into one loop match what the
criteria say, in the same order; `first` is the first of `select`; the replica after an apply that
keeps unchanged windows is the replica a full rebuild gives; the parse keeps every field; the
dump that stops describing at its line limit prints what the whole dump cut there would.

The references here are the plain versions the optimised code replaced: one predicate per
criterion tested with all(), and a replica that rebuilds every window and compares every node."""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass
from itertools import chain
from typing import Any

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_mobile_agent.errors import InvalidSelector
from pytest_mobile_agent.mirror.dump import dump_view
from pytest_mobile_agent.mirror.replica import Replica, View
from pytest_mobile_agent.mirror.selectors import Selector
from pytest_mobile_agent.session.backends import Node, ReadReason, Snapshot
from pytest_mobile_agent.session.tree import parse_snapshot
from tests.support import session_fakes as fakes
from tests.support.mirror_fakes import login_screen
from tests.unit.mirror.trees import BELOW, CLASSES, DESCS, FLAGS, PACKAGES, RES, TEXTS, snapshots


def parsed(raw: dict[str, Any]) -> Snapshot:
    return parse_snapshot(raw, scale=2.625, reason=ReadReason.POLL, read_at=0.0)


# --- selectors -------------------------------------------------------------------------------------


def reference_match(selector: Selector, n: Node) -> bool:
    """What each criterion means (the module's docstring), one test after another."""
    checks = []
    if selector.text is not None:
        checks.append(n.text == selector.text)
    if selector.text_contains is not None:
        checks.append(n.text is not None and selector.text_contains in n.text)
    if selector.text_matches is not None:
        checks.append(n.text is not None and re.search(selector.text_matches, n.text) is not None)
    if selector.id is not None:
        suffix = selector.id if ":id/" in selector.id else f":id/{selector.id}"
        checks.append(n.res is not None and (n.res == selector.id or n.res.endswith(suffix)))
    if selector.desc is not None:
        checks.append(n.desc == selector.desc)
    if selector.desc_contains is not None:
        checks.append(n.desc is not None and selector.desc_contains in n.desc)
    if selector.class_name is not None:
        checks.append(n.class_name == selector.class_name or n.class_name.endswith("." + selector.class_name))
    if selector.package is not None:
        checks.append(n.package == selector.package)
    for name in FLAGS:
        wanted = getattr(selector, name)
        if wanted is not None:
            checks.append(bool(getattr(n, name)) is bool(wanted))
    return all(checks)


def criteria() -> st.SearchStrategy[dict[str, Any]]:
    parts = st.fixed_dictionaries({}, optional={
        "text": st.sampled_from([t for t in TEXTS if t is not None]),
        "text_contains": st.sampled_from(["Cell", "ell 1", "o", "✓", "zz"]),
        "text_matches": st.sampled_from([r"Cell \d+$", r"^L", r"(?i)login", "."]),
        "id": st.sampled_from([r for r in RES if r is not None] + ["cell_1", "title"]),
        "desc": st.sampled_from([d for d in DESCS if d is not None]),
        "desc_contains": st.sampled_from(["lose", "Sign", "x"]),
        "class_name": st.sampled_from([*CLASSES, "View", "Button"]),
        "package": st.sampled_from([p for p in PACKAGES if p is not None]),
        **{name: st.booleans() for name in FLAGS},
    })
    return parts.filter(bool)


@given(snapshots(), criteria())
def test_a_compiled_selector_matches_what_its_criteria_say_in_tree_order(raw: dict[str, Any],
                                                                          given_criteria: dict[str, Any]) -> None:
    replica = Replica()
    replica.apply(parsed(raw))
    view = replica.view
    assert view is not None
    selector = Selector.of(given_criteria)
    expected = [e for e in view.entries if reference_match(selector, e.node)]
    assert selector.select(view) == expected
    assert selector.first(view) == (expected[0] if expected else None)
    assert [check(e.node) for e in view.entries for check in selector.checks()] == [
        reference_match(Selector.of({name: value}), e.node) for e in view.entries for name, value in selector.terms()
    ]


@given(snapshots(), criteria(), st.data())
def test_scoped_selectors_match_within_the_window_and_the_element_as_before(raw: dict[str, Any],
                                                                           given_criteria: dict[str, Any],
                                                                           data: st.DataObject) -> None:
    replica = Replica()
    replica.apply(parsed(raw))
    view = replica.view
    assert view is not None
    anchor = data.draw(st.sampled_from(view.entries))
    window_id = data.draw(st.sampled_from([w.id for w in view.windows]))
    selector = Selector.of({**given_criteria, "within": anchor.ref, "window": window_id})
    expected = [e for e in view.subtree(anchor) if e.window.id == window_id and reference_match(selector, e.node)]
    assert selector.select(view) == expected
    assert selector.first(view) == (expected[0] if expected else None)


def test_a_selector_given_a_value_not_of_its_type_is_refused_naming_the_criterion() -> None:
    """A list for text= used to be compiled outside the cache and match nothing (issue 28, item 7)."""
    with pytest.raises(InvalidSelector, match=r"text= takes a str, not \['Login'\] \(a list\)"):
        Selector(text=["Login"])  # type: ignore[arg-type]


# --- the replica -----------------------------------------------------------------------------------


@dataclass
class ReferenceReplica:
    """Refs as replica.py's docstring defines them, every window rebuilt, every node compared, and
    a node the agent calls visible held as not visible when it lies wholly outside its window's
    part of the display (Android's isVisibleToUser)."""

    refs: dict[tuple[int, int, object, str], int]
    next_ref: int = 1
    view: list[tuple[int, Node, int, int | None, int]] | None = None

    def apply(self, snapshot: Snapshot) -> tuple[list[tuple[int, Node, int, int | None, int]], bool]:
        entries = []
        for window in snapshot.windows:
            ref_of: dict[int, int] = {}
            position: dict[int, int] = {}
            named_before: list[tuple[int, str, str]] = []
            for index, n in enumerate(window.nodes):
                parent_ref = ref_of.get(n.parent) if n.parent is not None else None
                parent_key = -1 if parent_ref is None else parent_ref
                place: object = position.get(n.id, 0)
                if n.res:
                    place = (n.res, named_before.count((parent_key, n.res, n.class_name)))
                    named_before.append((parent_key, n.res, n.class_name))
                key = (window.id, parent_key, place, n.class_name)
                if key not in self.refs:
                    self.refs[key] = self.next_ref
                    self.next_ref += 1
                ref_of[n.id] = self.refs[key]
                for i, child in enumerate(n.children):
                    position[child] = i
                entries.append((self.refs[key], _as_the_user_sees(n, window.bounds, snapshot.display), window.id,
                                parent_ref, index))
        changed = self.view is None or _visibly_different(self.view, entries)
        self.view = entries
        return entries, changed


def _as_the_user_sees(n: Node, window: tuple[int, int, int, int], display: Any) -> Node:
    left, top = max(window[0], 0), max(window[1], 0)
    right, bottom = min(window[2], display.width), min(window[3], display.height)
    outside = n.bounds[2] <= left or n.bounds[0] >= right or n.bounds[3] <= top or n.bounds[1] >= bottom
    return msgspec.structs.replace(n, visible=False) if n.visible and outside else n


def _visibly_different(before: list[Any], after: list[Any]) -> bool:
    old = {e[0]: e[1] for e in before}
    new = {e[0]: e[1] for e in after}
    if len(old) != len(new):
        return True
    return any(
        ref not in old or _seen(old[ref]) != _seen(n) for ref, n in new.items()
    )


def _seen(n: Node) -> tuple[Any, ...]:
    return (n.bounds, n.text, n.desc, n.focused, n.checked, n.selected, n.enabled, n.visible, n.scroll)


def as_rows(view: View) -> list[tuple[int, Node, int, int | None, int]]:
    return [(e.ref, e.node, e.window.id, e.parent, e.index) for e in view.entries]


def evicted(raw: dict[str, Any], shift: int) -> dict[str, Any]:
    """The same screen read after the agent evicted its cache: every node id new."""
    out = copy.deepcopy(raw)
    for w in out["windows"]:
        for n in w["nodes"]:
            n["id"] += shift
            n["parent"] = None if n["parent"] is None else n["parent"] + shift
            n["children"] = [c + shift for c in n["children"]]
    return out


def edited(raw: dict[str, Any], which: int, text: str) -> dict[str, Any]:
    out = copy.deepcopy(raw)
    nodes = list(chain.from_iterable(w["nodes"] for w in out["windows"]))
    nodes[which % len(nodes)]["text"] = text
    return out


def scrolled(raw: dict[str, Any], which: int) -> dict[str, Any]:
    """A node moved below the display, or back up onto it."""
    out = copy.deepcopy(raw)
    nodes = list(chain.from_iterable(w["nodes"] for w in out["windows"]))
    bounds = nodes[which % len(nodes)]["bounds"]
    shift = -BELOW if bounds[1] >= BELOW else BELOW
    bounds[1] += shift
    bounds[3] += shift
    return out


def moved(raw: dict[str, Any], which: int) -> dict[str, Any]:
    """A window whose top edge moved down (a dialog, a resized split screen), its nodes where they were."""
    out = copy.deepcopy(raw)
    w = out["windows"][which % len(out["windows"])]
    w["bounds"] = [0, 0, 1080, 2400] if w["bounds"][1] else [0, which % 30, 1080, 2400]
    return out


def skipped(raw: dict[str, Any], which: int) -> dict[str, Any]:
    """A read that left a child out (a cap, a child gone mid-read): a node lists a child id that no
    serialized node has, so its siblings' indices are not their places (the replica keys such a
    window node by node; issue 40's reuse of refs by place must not apply)."""
    out = copy.deepcopy(raw)
    nodes = list(chain.from_iterable(w["nodes"] for w in out["windows"]))
    parents = [n for n in nodes if n["children"]] or nodes
    parent = parents[which % len(parents)]
    parent["children"].insert(which % len(parent["children"]) if parent["children"] else 0, 900_000 + which)
    return out


@given(st.lists(st.tuples(st.sampled_from(["same", "evicted", "edited", "other", "dropped", "skipped", "scrolled",
                                           "moved"]),
                          st.integers(0, 1000), snapshots(max_nodes=12, offscreen=True)), min_size=1, max_size=5),
       snapshots(offscreen=True))
def test_applying_keeps_the_replica_a_full_rebuild_gives(steps: list[tuple[str, int, dict[str, Any]]],
                                                         first: dict[str, Any]) -> None:
    replica, reference = Replica(), ReferenceReplica({})
    raw = first
    for step in [("same", 0, first), *steps]:
        kind, number, other = step
        if kind == "evicted":
            raw = evicted(raw, 10_000 + number)
        elif kind == "edited":
            raw = edited(raw, number, f"text {number}")
        elif kind == "other":
            raw = other
        elif kind == "dropped" and len(raw["windows"]) > 1:
            raw = {**raw, "windows": raw["windows"][1:]}
        elif kind == "skipped":
            raw = skipped(raw, number)
        elif kind == "scrolled":
            raw = scrolled(raw, number)
        elif kind == "moved":
            raw = moved(raw, number)
        snapshot = parsed(raw)
        changed = replica.apply(snapshot)
        expected, expected_changed = reference.apply(snapshot)
        assert replica.view is not None
        assert as_rows(replica.view) == expected
        assert changed is expected_changed
        assert {e.ref: e for e in replica.view.entries} == replica.view.by_ref
        assert replica.view.by_window == {w.id: tuple(e for e in replica.view.entries if e.window.id == w.id)
                                          for w in snapshot.windows}


def test_a_window_read_again_from_the_agents_cache_keeps_its_entries() -> None:
    raw = login_screen()
    replica = Replica()
    replica.apply(parsed(raw))
    before = replica.view
    assert before is not None
    assert replica.apply(parsed(copy.deepcopy(raw))) is False
    after = replica.view
    assert after is not None and after.generation == before.generation + 1
    assert all(after.by_window[w] is before.by_window[w] for w in after.by_window)


# --- the parse -------------------------------------------------------------------------------------

KEYS = {"class_name": "class", "range_info": "range"}
DEFAULTS = {f.name: f.default for f in msgspec.structs.fields(Node) if f.default is not msgspec.NODEFAULT}
"""The optional keys (the accessibility fields, docs/protocol.md a11y_fields): left out, their default."""


@given(snapshots())
def test_the_parse_keeps_every_field_the_agent_sent(raw: dict[str, Any]) -> None:
    snapshot = parsed(raw)
    for window, sent in zip(snapshot.windows, raw["windows"], strict=True):
        for n, fields in zip(window.nodes, sent["nodes"], strict=True):
            for name in Node.__struct_fields__:
                if KEYS.get(name, name) not in fields:
                    assert getattr(n, name) == DEFAULTS[name], name
                    continue
                value = fields[KEYS.get(name, name)]
                if name in ("bounds", "children"):
                    value = tuple(value)
                assert getattr(n, name) == value, name
            assert hash(n) == hash(Node(**msgspec.structs.asdict(n)))  # a value: hashable, equal to itself rebuilt


# --- the dump in an error message ------------------------------------------------------------------


@given(snapshots(), st.integers(min_value=0, max_value=40))
def test_a_dump_cut_at_its_line_limit_is_the_whole_dump_cut_there(raw: dict[str, Any], limit: int) -> None:
    replica = Replica()
    replica.apply(parsed({**raw, "truncated": limit % 2 == 0}))
    whole = dump_view(replica.view).split("\n")
    cut = (
        whole
        if len(whole) <= limit
        else [*whole[:limit], f"... {len(whole) - limit} more lines (screen.dump() shows them all)"]
    )
    assert dump_view(replica.view, max_lines=limit) == "\n".join(cut)


def test_a_read_that_left_a_child_out_is_keyed_node_by_node_not_by_place() -> None:
    """Issue 40: a window of the same shape takes its refs by place, but a read whose parent lists
    a child it did not serialize has sibling indices no place stands for: the refs are those a full
    rebuild gives, through the eviction that follows too."""
    nodes = [fakes.node(1, children=(2, 3, 4)), fakes.node(2, 1, 1, text="a"), fakes.node(3, 1, 1, text="b"),
             fakes.node(4, 1, 1, text="c")]
    raw = fakes.snapshot(fakes.window(12, nodes))
    replica, reference = Replica(), ReferenceReplica({})
    for step in (raw, skipped(raw, 0), evicted(skipped(raw, 0), 100), evicted(raw, 200)):
        snapshot_ = parsed(step)
        changed = replica.apply(snapshot_)
        expected, expected_changed = reference.apply(snapshot_)
        assert replica.view is not None
        assert as_rows(replica.view) == expected and changed is expected_changed
