"""The replica: the device's windows as the latest read showed them, with stable refs for nodes.

A node's ref is kept for as long as the node stays where it was: the same window, the same parent
(by ref), and the same resource id (the first, second, ... sibling with that id and class: a list's
rows often share one), or without one the same position among its siblings, with the same class.
The agent's own node ids change whenever it evicts a window's cache; refs do not, so an element a
test holds survives the re-read after a tap.

A node the agent calls visible whose bounds lie wholly outside its window on the display is not
visible (`isVisibleToUser`: on the screen, inside its window's visible region; mirror/geometry.py):
the replica holds it as `visible=False`, so queries, elements and actions agree.

A window read again after an eviction usually has the shape it had (the same tree, classes and
resource ids under new node ids): its nodes then take the refs of the nodes at the same places,
found by comparing the two shapes whole (`Shape`, lists compared in C) rather than node by node.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import chain, count, repeat
from typing import NamedTuple

import msgspec

from pytest_mobile_agent.mirror.geometry import screen_region
from pytest_mobile_agent.mirror.text_index import TextIndex
from pytest_mobile_agent.session.backends import Bounds, Display, Node, Snapshot, Window

MAX_REMEMBERED_REFS = 100_000

RefKey = tuple[int, int, object, str]
"""(window id, parent ref or -1, (resource id, its ordinal among the siblings sharing it) or sibling
index, class)."""


class Entry(msgspec.Struct, frozen=True, gc=False):
    """A node of the replica: the agent's node, where it sits, and its ref.

    One is made per node at each apply, so it is as cheap as can be: a msgspec struct, built in one
    C call and untracked by the cyclic collector (`gc=False`: an entry refers to its node and its
    window, neither of which ever refers back to an entry, so it is never part of a cycle). At
    5,000 nodes a read's tracked survivors were the entries, and the collector's full passes over
    them cost as much as the read's own work (benches/bench_large_trees.py)."""

    ref: int
    node: Node
    window: Window
    parent: int | None
    """The parent's ref."""
    index: int
    """The node's position in its window's pre-order list (descendants follow it contiguously)."""


@dataclass(frozen=True, slots=True)
class View:
    """One generation of the replica: what a warm snapshot returns, without a device read.

    Its queries (README, "A `View`"): `windows`, `entries`, `node_count`, `generation`, `snapshot`,
    `entry(ref)`, `subtree(entry)`, `children(entry)`, `ancestors(entry)`."""

    generation: int
    snapshot: Snapshot
    entries: tuple[Entry, ...]
    by_ref: dict[int, Entry]
    by_window: dict[int, tuple[Entry, ...]]
    shapes: dict[int, Shape | None] = field(default_factory=dict)
    """Each window's shape (None where it cannot be reused by place, `shape_of`)."""
    kept: frozenset[int] = frozenset()
    """The windows whose entries are the previous generation's, unchanged."""
    text_indexes: dict[int, TextIndex[Entry]] = field(default_factory=dict, compare=False, repr=False)
    """Each window's text index (mirror/text_index.py), built when text queries ask for it; a kept
    window's is the previous generation's."""
    text_windows: tuple[tuple[tuple[Entry, ...], TextIndex[Entry]], ...] | None = field(
        default=None, compare=False, repr=False)
    """Each window's entries and its text index, top-most window first; None when two windows
    share an id (their entries are not each a window's: the index does not answer)."""

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
        refs, would come out the same. A window of the same shape as before takes the refs of the
        nodes at the same places; any other is keyed node by node."""
        previous = self.view
        entries: list[Entry] = []
        by_window: dict[int, tuple[Entry, ...]] = {}
        shapes: dict[int, Shape | None] = {}
        kept: set[int] = set()
        display = snapshot.display
        same_display = previous is not None and previous.snapshot.display == display
        changed = not same_display  # a new display (a turn, a resize) moves what lies on the screen
        for window in snapshot.windows:
            wid = window.id
            window_entries = _unchanged_entries(previous, window) if same_display else None
            if window_entries is not None:
                kept.add(wid)
                shapes[wid] = previous.shapes.get(wid) if previous is not None else None
            else:
                region = screen_region(window, display)
                shape = shapes[wid] = shape_of(window.nodes)
                old = previous.by_window.get(wid) if previous is not None else None
                before = previous.shapes.get(wid) if previous is not None else None
                if shape is not None and old is not None and before is not None and shape.keys_like(before):
                    window_entries = _entries_in_place(window, old, region)
                    changed = changed or shape.seen != before.seen or (
                        _region_of(old, display) != region and _window_changed(previous, window_entries))
                else:
                    window_entries = self._window_entries(window, region)
                    changed = changed or _window_changed(previous, window_entries)
            by_window[wid] = window_entries
            entries.extend(window_entries)
        by_ref = dict(zip(map(_ref, entries), entries, strict=True))
        if len(self._refs) > MAX_REMEMBERED_REFS:  # forget the keys of nodes long gone
            live = set(by_ref)
            self._refs = {k: r for k, r in self._refs.items() if r in live}
        if previous is not None and not changed:
            changed = len(previous.by_ref) != len(by_ref) or tuple(w.id for w in previous.snapshot.windows) != tuple(
                w.id for w in snapshot.windows)
        self.generation += 1
        indexes = _text_indexes(previous, kept, by_window, shapes)
        text_windows = tuple(zip(by_window.values(), indexes.values(), strict=True)) if len(by_window) == len(
            snapshot.windows) else None
        self.view = View(self.generation, snapshot, tuple(entries), by_ref, by_window, shapes, frozenset(kept),
                         indexes, text_windows)
        return changed

    def _window_entries(self, window: Window, region: Bounds | None) -> tuple[Entry, ...]:
        """The window's entries, refs kept; a node outside `region` (the window on the display) is
        held as not visible."""
        refs = self._refs
        ref_of: dict[int, int] = {}
        sibling: dict[int, int] = {}
        same_id: dict[tuple[int, str, str], int] = {}  # siblings so far with a resource id and class
        out: list[Entry] = []
        wid = window.id
        seen = _as_seen(window.nodes, region)
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
            out.append(Entry(ref, seen[index], window, None if parent_ref == -1 else parent_ref, index))
        return tuple(out)


_ref = operator.attrgetter("ref")


def _texts_of(entries: tuple[Entry, ...], shape: Shape | None) -> Callable[[], list[str | None]]:
    """The entries' texts, read when called (a text index reads them when it is built): the
    window's shape holds them already (its text column, read from the same nodes in the same
    order), else each entry's node is read."""
    if shape is not None:
        texts = shape.texts
        return lambda: texts
    return lambda: [e.node.text for e in entries]

_parent_ref = operator.attrgetter("parent")


class Shape(NamedTuple):
    """What a window's node keys are made of, node by node in its pre-order list, with the agent's
    ids left out: two windows of one id whose shapes have like keys give every node at one place
    the same key (`Replica._window_entries`), so the same ref. And what a test sees of each node
    (`_VISIBLE`, a tuple per node), to tell whether anything changed at any place."""

    parents: list[int]
    """The index of each node's parent in the list; -1 for a root (or a parent not serialized)."""
    classes: list[str]
    res: list[str | None]
    seen: list[tuple[object, ...]]
    texts: list[str | None]
    """Each node's text (its text index reads them)."""

    def keys_like(self, other: Shape) -> bool:
        return self.parents == other.parents and self.classes == other.classes and self.res == other.res


_id = operator.attrgetter("id")
_parent = operator.attrgetter("parent")
_class = operator.attrgetter("class_name")
_res = operator.attrgetter("res")
_children = operator.attrgetter("children")
_text = operator.attrgetter("text")


def shape_of(nodes: Sequence[Node]) -> Shape | None:
    """The window's shape; None unless every node's `children` are exactly the nodes that follow it
    at the next level, in order (a read that left children out, or ids used twice, has a sibling
    index no place can stand for: such a window is keyed node by node). All of it in C (map, zip,
    sort), a few tenths of a millisecond at 5,000 nodes."""
    index_of = dict(zip(map(_id, nodes), count()))
    if len(index_of) != len(nodes):
        return None
    parents = list(map(index_of.get, map(_parent, nodes), repeat(-1)))
    listed = list(map(index_of.get, chain.from_iterable(map(_children, nodes))))
    by_parent = sorted(range(len(nodes)), key=parents.__getitem__)  # stable: pre-order within a parent
    if listed != by_parent[parents.count(-1):]:
        return None
    return Shape(parents, list(map(_class, nodes)), list(map(_res, nodes)), list(map(_visible, nodes)),
                 list(map(_text, nodes)))


def _entries_in_place(window: Window, old: tuple[Entry, ...], region: Bounds | None) -> tuple[Entry, ...]:
    """The window's entries, each node taking the ref of the old entry at its place (equal shapes)."""
    nodes = _as_seen(window.nodes, region)
    return tuple(map(Entry, map(_ref, old), nodes, repeat(window), map(_parent_ref, old), count()))


def _region_of(entries: tuple[Entry, ...], display: Display) -> Bounds | None:
    """Where the window the entries were made for lay on the display (a window that moves changes
    which of its nodes lie outside it)."""
    return screen_region(entries[0].window, display) if entries else None


def _as_seen(nodes: Sequence[Node], region: Bounds | None) -> Sequence[Node]:
    """The nodes as the replica holds them: one the agent calls visible whose bounds lie wholly
    outside its window on the display (`region`) is not visible (Android's isVisibleToUser;
    geometry.on_screen's test, written inline: a call per node was a fifth of an apply's time)."""
    if region is None:
        return nodes
    left, top, right, bottom = region
    replace = msgspec.structs.replace  # called as is: through functools.partial it took twice as long
    return [node if not node.visible or ((b := node.bounds)[2] > left and b[0] < right and b[3] > top and b[1] < bottom)
            else replace(node, visible=False) for node in nodes]


def _unchanged_entries(previous: View | None, window: Window) -> tuple[Entry, ...] | None:
    """The previous view's entries of `window` when it holds an equal window under its id."""
    if previous is None:
        return None
    entries = previous.by_window.get(window.id)
    if not entries or entries[0].window != window:
        return None
    return entries


def _text_indexes(previous: View | None, kept: set[int], by_window: dict[int, tuple[Entry, ...]],
                  shapes: dict[int, Shape | None]) -> dict[int, TextIndex[Entry]]:
    """A text index per window, in the windows' order: the previous view's for a window kept
    unchanged (its entries are the same objects, so its index answers for the new view as it did:
    a clock that ticks in the status bar does not make the app's window build its index again),
    else a new one, which reads and joins nothing until queries ask for it (`TextIndex`)."""
    carried = previous.text_indexes if previous is not None else {}
    indexes: dict[int, TextIndex[Entry]] = {}
    for wid, entries in by_window.items():
        index = carried.get(wid) if wid in kept else None
        indexes[wid] = index if index is not None else TextIndex(entries, _texts_of(entries, shapes.get(wid)))
    return indexes


def _window_changed(previous: View | None, entries: tuple[Entry, ...]) -> bool:
    """Whether a window keyed node by node shows a test anything the previous view did not."""
    if previous is None:
        return True
    old_entries = previous.by_ref
    for entry in entries:
        old = old_entries.get(entry.ref)
        if old is None or (old.node is not entry.node and _visible(old.node) != _visible(entry.node)):
            return True
    return False


_VISIBLE = ("bounds", "text", "desc", "focused", "checked", "selected", "enabled", "visible", "scroll")
"""What a test can see of a node: a change here is a change of the replica."""
_visible = operator.attrgetter(*_VISIBLE)
