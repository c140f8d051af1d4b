"""The shortest query that finds one element and no other: what the inspector offers to paste.

    locator = unique_locator(view, entry)
    locator.python()          # 'screen.find(id="username")'

Unique means across every window of the view, by the selectors' own matching (`Selector.select`),
so what is offered is exactly what `screen.find` and `screen.find_all` would do with it. The search
tries the node's own criteria (id, text, desc, class) one at a time, then in pairs and threes, then
scoped to its window, then within its nearest ancestor that has a unique locator of its own; when
nothing singles the node out (two identical nodes), it is the node's place among the matches of
its best criterion, `screen.find_all(...)[i]`.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from pytest_mobile_agent.mirror.replica import Entry, View
from pytest_mobile_agent.mirror.selectors import Selector, window_matches

Criterion = tuple[str, Any]

MAX_CRITERIA = 3
"""Criteria combined at most before the search scopes to the window or an ancestor instead."""
ANCESTOR_DEPTH = 4
"""How many ancestors up a `within=` anchor is looked for (each needs a locator of its own)."""


@dataclass(frozen=True)
class Locator:
    """A query for one element: criteria, optionally within another element's locator, and the
    index among `find_all`'s matches when the criteria alone match more than the element."""

    criteria: tuple[Criterion, ...]
    within: Locator | None = None
    index: int | None = None

    def selector(self, view: View) -> Selector | None:
        """The selector this locator means on `view` (None when its `within` anchor is not there)."""
        criteria = dict(self.criteria)
        if self.within is not None:
            anchor = self.within.resolve(view)
            if anchor is None:
                return None
            criteria["within"] = anchor.ref
        return Selector.of(criteria)

    def resolve(self, view: View) -> Entry | None:
        """The entry the locator finds on `view`, by `Selector.select`: the one element, else None."""
        selector = self.selector(view)
        if selector is None:
            return None
        found = selector.select(view)
        if self.index is None:
            return found[0] if len(found) == 1 else None
        return found[self.index] if self.index < len(found) else None

    def python(self, screen: str = "screen") -> str:
        """The line of Python that finds the element: `screen.find(id="username")`."""
        args = [f"{name}={literal(value)}" for name, value in self.criteria]
        if self.within is not None:
            args.append(f"within={self.within.python(screen)}")
        if self.index is None:
            return f"{screen}.find({', '.join(args)})"
        return f"{screen}.find_all({', '.join(args)})[{self.index}]"


def unique_locator(view: View, entry: Entry) -> Locator:
    """The shortest locator that finds `entry` and no other node of `view` (see the module doc)."""
    found = _unique_in(view, entry, view.entries, within=None)
    if found is not None:
        return found
    anchored = _within_an_ancestor(view, entry)
    if anchored is not None:
        return anchored
    return _by_index(view, entry)


def candidate_criteria(view: View, entry: Entry) -> list[Criterion]:
    """What the node can be asked by, best first: its id (short, then whole), text, description,
    class, then its window by type, title or package, whichever names it alone."""
    node = entry.node
    out: list[Criterion] = []
    if node.res:
        short = node.res.split(":id/", 1)[-1]
        out.append(("id", short))
        if short != node.res:
            out.append(("id", node.res))
    if node.text:
        out.append(("text", node.text))
    if node.desc:
        out.append(("desc", node.desc))
    out.append(("class_name", node.class_name.rsplit(".", 1)[-1]))
    out.extend(("window", spec) for spec in _window_specs(view, entry))
    return out


def _unique_in(view: View, entry: Entry, scope: Sequence[Entry], within: Locator | None) -> Locator | None:
    """The fewest criteria whose matches within `scope` are `entry` alone, checked in the end by
    the selector itself; the single criteria's matches are found once and intersected."""
    candidates = candidate_criteria(view, entry)
    matches = {c: _refs(view, scope, c) for c in candidates}
    for size in range(1, MAX_CRITERIA + 1):
        for combo in itertools.combinations(candidates, size):
            if len({name for name, _ in combo}) < size:
                continue  # two values of one criterion (short id and whole id) ask the same twice
            if set.intersection(*(matches[c] for c in combo)) == {entry.ref}:
                locator = Locator(combo, within)
                if locator.resolve(view) == entry:
                    return locator
    return None


def _within_an_ancestor(view: View, entry: Entry) -> Locator | None:
    ancestor = _parent(view, entry)
    for _ in range(ANCESTOR_DEPTH):
        if ancestor is None:
            return None
        anchor = _unique_in(view, ancestor, view.entries, within=None)
        if anchor is not None:
            inner = _unique_in(view, entry, view.subtree(ancestor), within=anchor)
            if inner is not None:
                return inner
        ancestor = _parent(view, ancestor)
    return None


def _by_index(view: View, entry: Entry) -> Locator:
    """The node's place among the matches of its best criterion: it has a twin in every respect
    the selectors can ask."""
    best = candidate_criteria(view, entry)[0]
    locator = Locator((best,))
    matches = locator.selector(view).select(view)  # type: ignore[union-attr]  # no within: never None
    return Locator((best,), index=[e.ref for e in matches].index(entry.ref))


def _refs(view: View, scope: Sequence[Entry], criterion: Criterion) -> set[int]:
    name, value = criterion
    if name == "window":
        wanted = {w.id for w in view.windows if window_matches(w, value)}
        return {e.ref for e in scope if e.window.id in wanted}
    return {e.ref for e in Selector.of({name: value}).matcher().select(scope)}


def _window_specs(view: View, entry: Entry) -> list[str]:
    """The window's type, title or package, each only where it names this window alone (a
    window's numeric id changes from run to run, so it is never offered)."""
    window = entry.window
    specs: Iterable[str | None] = (window.type, window.title, window.package)
    return [
        s for s in dict.fromkeys(specs) if s and [w.id for w in view.windows if window_matches(w, s)] == [window.id]
    ]


def _parent(view: View, entry: Entry) -> Entry | None:
    return view.entry(entry.parent) if entry.parent is not None else None


def literal(value: Any) -> str:
    """A Python literal for the value, in double quotes where that needs no escaping."""
    text = repr(value)
    if isinstance(value, str) and text.startswith("'") and '"' not in value:
        return '"' + text[1:-1] + '"'
    return text
