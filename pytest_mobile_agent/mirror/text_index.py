"""A window's texts as one string, for text queries that need not test every node.

A hand-written loop over a view tests each node's text in turn. `TextIndex` joins a window's
non-empty texts into one str, each between two SEPARATOR characters, and answers a query with
`str.find` (C, memchr-fast) over it: a hit's position is mapped back to its item by counting the
separators before it (`str.count`, C again), so the Python-level work is per hit, not per node.

It answers only where that is exact, and says None otherwise (the caller then tests the window's
nodes as before):

* the needle is empty or contains the separator (the caller does not ask then: `usable_needle`);
* a text of the window contains the separator (found once, when built: the count of separators
  then differs from the count of texts plus one);
* the needle is met so often that testing each node is cheaper (`DENSE_SHARE`: the scan stops
  there);
* the index has not been asked for often enough yet (`BUILD_AFTER_ASKS`).

A None or empty text is left out of the joined string: neither holds a non-empty needle, nor
equals one. Hits come back in the window's order (pre-order).

The index is built lazily and kept by whoever holds it (the replica's `View`, per window, carried
into the next generation for a window the replica kept unchanged); it refers to the window's items
and their texts, nothing else.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import compress
from typing import Generic, TypeVar

T = TypeVar("T")

SEPARATOR = "\x00"
"""Between two texts in the joined string. NUL: rare in a UI's text, and ASCII, so a window of
Latin-1 texts joins into a one-byte-per-character string (a wider separator would widen it)."""
BUILD_AFTER_ASKS = 2
"""The ask that builds the index: the first query of a window's new generation tests its nodes as
a loop does (building costs about what one loop costs, docs/performance.md), the second builds it,
so a window asked once (a wait on a screen that changes at every look) never pays the build."""
DENSE_SHARE = 8
"""A needle found more often than one text in this many is answered by testing the nodes: a hit
costs a few C calls from Python, a node tested by a loop a few attribute reads."""


def usable_needle(needle: str) -> bool:
    """Whether the index can answer for this needle exactly (non-empty, without the separator)."""
    return bool(needle) and SEPARATOR not in needle


class TextIndex(Generic[T]):
    """The texts of one window's items, joined; `containing` and `equal_to` answer from it."""

    __slots__ = ("__weakref__", "_all", "_asks", "_items", "_joined", "_texts", "_usable")

    def __init__(self, items: Sequence[T], texts: Callable[[], Sequence[str | None]]) -> None:
        """`texts()` gives the text of each of `items` (None for none), called when the index is
        built: nothing is read or joined before."""
        self._all = items
        self._items: list[T] = []
        """The items whose texts are joined, in order (those with a non-empty text)."""
        self._texts = texts
        self._asks = 0
        self._joined = ""
        self._usable = False

    @property
    def built(self) -> bool:
        return self._asks >= BUILD_AFTER_ASKS

    def containing(self, needle: str) -> list[T] | None:
        """The items whose text contains `needle` (a `usable_needle`), in order; None where the
        index cannot answer (see the module's docstring)."""
        if not self._ready():
            return None
        joined, items = self._joined, self._items
        find, count = joined.find, joined.count
        dense = len(items) // DENSE_SHARE
        found: list[T] = []
        separators = 0  # in joined[:at]: item k's text follows the (k+1)-th separator
        at = 0
        position = find(needle)
        while position >= 0:
            separators += count(SEPARATOR, at, position)
            found.append(items[separators - 1])
            if len(found) > dense:
                return None
            at = find(SEPARATOR, position)  # the end of that text: one hit per item
            position = find(needle, at)
        return found

    def equal_to(self, needle: str) -> list[T] | None:
        """The items whose text is `needle` (a `usable_needle`), in order; None where the index
        cannot answer. A text between two separators is a whole text: none holds one."""
        if not self._ready():
            return None
        joined, items = self._joined, self._items
        find, count = joined.find, joined.count
        whole = SEPARATOR + needle + SEPARATOR
        dense = len(items) // DENSE_SHARE
        found: list[T] = []
        separators = 0
        at = 0
        position = find(whole)
        while position >= 0:
            separators += count(SEPARATOR, at, position + 1)
            at = position + 1
            found.append(items[separators - 1])
            if len(found) > dense:
                return None
            position = find(whole, position + len(needle) + 1)  # the next may start at this one's end
        return found

    def _ready(self) -> bool:
        """Built and usable, building it on the ask that `BUILD_AFTER_ASKS` names. What it is built
        of is in place before the ask count says built, so a query on another thread sees either
        no index (and tests the nodes) or the whole of it; two threads building at once build the
        same from the same (the items and texts given are never replaced)."""
        asks = self._asks
        if asks >= BUILD_AFTER_ASKS:
            return self._usable
        if asks + 1 < BUILD_AFTER_ASKS:
            self._asks = asks + 1
            return False
        texts = self._texts()
        kept = list(filter(None, texts))  # neither None nor "" holds or equals a non-empty needle
        joined = SEPARATOR + SEPARATOR.join(kept) + SEPARATOR if kept else SEPARATOR
        usable = joined.count(SEPARATOR) == len(kept) + 1  # no text holds the separator
        self._joined = joined if usable else ""
        self._items = list(compress(self._all, texts)) if usable else []
        self._usable = usable
        self._asks = BUILD_AFTER_ASKS
        return usable
