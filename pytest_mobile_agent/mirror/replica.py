"""The replica: the device's windows as the latest read showed them, with stable refs for nodes.

A node's ref is kept for as long as the node stays where it was: the same window, the same parent
(by ref), and the same resource id (the first, second, ... sibling with that id and class: a list's
rows often share one), or without one the same position among its siblings, with the same class.
The agent's own node ids change whenever it evicts a window's cache; refs do not, so an element a
test holds survives the re-read after a tap.
"""

from __future__ import annotations

import operator
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import count
from typing import NamedTuple

from pytest_mobile_agent.session.backends import Node, Snapshot, Window

MAX_REMEMBERED_REFS = 100_000

RefKey = tuple[int, int, object, str]
"""(window id, parent ref or -1, (resource id, its ordinal among the siblings sharing it) or sibling
index, class)."""


class Entry(NamedTuple):
    """A node of the replica: the agent's node, where it sits, and its ref (a named tuple: one is
    made per node at each apply)."""

    ref: int
    node: Node
    window: Window
    parent: int | None
    """The parent's ref."""
    index: int  # type: ignore[assignment]  # the field shadows tuple.index, which no caller uses
    """The node's position in its window's pre-order list (descendants follow it contiguously)."""


@dataclass(frozen=True, slots=True)
class View:
    """One generation of the replica: what a warm snapshot returns, without a device read."""

    generation: int
    snapshot: Snapshot
    entries: tuple[Entry, ...]
    by_ref: dict[int, Entry]
    by_window: dict[int, tuple[Entry, ...]]

    @property
    def windows(self) -> tuple[Window, ...]:
        return self.snapshot.windows

    @property
    def node_count(self) -> int:
        return len(self.entries)

    def entry(self, ref: int) -> Entry | None:
        return self.by_ref.get(ref)

    def subtree(self, entry: Entry) -> tuple[Entry, ...]:
        """The entry's descendants (pre-order, contiguous after it in its window)."""
        entries = self.by_window[entry.window.id]
        depth = entry.node.depth
        end = entry.index + 1
        while end < len(entries) and entries[end].node.depth > depth:
            end += 1
        return entries[entry.index + 1 : end]

    def children(self, entry: Entry) -> list[Entry]:
        return [e for e in self.subtree(entry) if e.parent == entry.ref]

    def ancestors(self, entry: Entry) -> Iterator[Entry]:
        parent = entry.parent
        while parent is not None:
            found = self.by_ref.get(parent)
            if found is None:
                return
            yield found
            parent = found.parent


class Replica:
    """Applies snapshots; hands out refs that stay stable across reads."""

    def __init__(self) -> None:
        self._refs: dict[RefKey, int] = {}
        self._next_ref = 1
        self.view: View | None = None
        self.generation = 0

    def apply(self, snapshot: Snapshot) -> bool:
        """Make `snapshot` the replica's content; True when anything a test can see changed.

        A window equal to the one the previous view holds under its id (the agent served it from
        its cache: the same nodes, ids and all) keeps its entries: its nodes' keys, and so their
        refs, would come out the same."""
        previous = self.view
        entries: list[Entry] = []
        by_window: dict[int, tuple[Entry, ...]] = {}
        rebuilt = False
        for window in snapshot.windows:
            window_entries = _unchanged_entries(previous, window)
            if window_entries is None:
                window_entries = self._window_entries(window)
                rebuilt = True
            by_window[window.id] = window_entries
            entries.extend(window_entries)
        by_ref = {e.ref: e for e in entries}
        if len(self._refs) > MAX_REMEMBERED_REFS:  # forget the keys of nodes long gone
            live = set(by_ref)
            self._refs = {k: r for k, r in self._refs.items() if r in live}
        changed = previous is None or _changed(previous, by_ref, snapshot, rebuilt)
        self.generation += 1
        self.view = View(self.generation, snapshot, tuple(entries), by_ref, by_window)
        return changed

    def _window_entries(self, window: Window) -> tuple[Entry, ...]:
        refs = self._refs
        ref_of: dict[int, int] = {}
        sibling: dict[int, int] = {}
        same_id: dict[tuple[int, str, str], int] = {}  # siblings so far with a resource id and class
        out: list[Entry] = []
        wid = window.id
        for index, node in enumerate(window.nodes):
            parent = node.parent
            parent_ref = -1 if parent is None else ref_of.get(parent, -1)
            place: object = sibling.get(node.id, 0)
            if node.res:
                named = (parent_ref, node.res, node.class_name)
                place = (node.res, same_id.get(named, 0))
                same_id[named] = place[1] + 1
            key: RefKey = (wid, parent_ref, place, node.class_name)
            ref = refs.get(key)
            if ref is None:
                ref = self._next_ref
                self._next_ref += 1
                refs[key] = ref
            ref_of[node.id] = ref
            if node.children:
                sibling.update(zip(node.children, count()))
            out.append(_new_entry(Entry, (ref, node, window, None if parent_ref == -1 else parent_ref, index)))
        return tuple(out)


_new_entry = tuple.__new__  # Entry's own __new__, less a Python call per node


def _unchanged_entries(previous: View | None, window: Window) -> tuple[Entry, ...] | None:
    """The previous view's entries of `window` when it holds an equal window under its id."""
    if previous is None:
        return None
    entries = previous.by_window.get(window.id)
    if not entries or entries[0].window != window:
        return None
    return entries


def _changed(previous: View, by_ref: dict[int, Entry], snapshot: Snapshot, rebuilt: bool) -> bool:
    if len(previous.by_ref) != len(by_ref):
        return True
    if tuple(w.id for w in previous.snapshot.windows) != tuple(w.id for w in snapshot.windows):
        return True
    if not rebuilt:  # every window kept its entries: nothing can differ
        return False
    old_entries = previous.by_ref
    for ref, entry in by_ref.items():
        old = old_entries.get(ref)
        if old is None or (old.node is not entry.node and _visible(old.node) != _visible(entry.node)):
            return True
    return False


_visible = operator.attrgetter("bounds", "text", "desc", "focused", "checked", "selected", "enabled", "visible",
                               "scroll")
"""What a test can see of a node: a change here is a change of the replica."""
