"""Selectors: which nodes of the replica an element query means.

    Selector(text="Login")                      exact text
    Selector(text_contains="Log")               substring
    Selector(text_matches=r"Cell \\d+")          regular expression (search)
    Selector(id="tab_login")                    resource id, whole or the part after ":id/"
    Selector(desc="Close"), Selector(desc_contains="clo")
    Selector(class_name="TextView")             whole class name or its last part
    Selector(clickable=True, focused=True, ...)  node states
    Selector(role="Tab"), Selector(state="On"), Selector(error="Required"), Selector(action="expand"),
    Selector(important=False)                   the accessibility fields (docs/protocol.md, a11y_fields)
    Selector(window="input_method")             a window by id, type, title or package
    Selector(within=element)                    descendants of an element
    Selector(xpath="//android.widget.Button[@text='Login']")   XPath over uiautomator's dump (mirror/xpath.py)

Every given criterion must hold. The criteria are checked once, where the selector is built, and
`Selector.of` keeps the selector it built per distinct set of criteria (their names, values and the
values' types), so a query asked again (a wait's every look, a test's loop) is a dictionary look-up,
not the checks again. Each selector's node criteria are compiled once into one function that tests
them all in a single loop over the nodes, as a hand-written loop would (each field read once, the
node bound without a tuple per entry); `first` stops at the first match. A whole view's query with
`text=` or `text_contains=` asks each window's text index (mirror/text_index.py) for the entries
that meet it and tests the other criteria on those only (`TextIndexed`); a window the index does not
answer for is tested by the loop. benches/bench_selectors.py measures both against such a loop.
"""

from __future__ import annotations

import difflib
import functools
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

from rapidfuzz import fuzz

from pytest_mobile_agent.errors import InvalidSelector, hide_our_frames
from pytest_mobile_agent.mirror.replica import Entry, View
from pytest_mobile_agent.mirror.text_index import usable_needle
from pytest_mobile_agent.mirror.xpath import compile_xpath, literals, select_xpath
from pytest_mobile_agent.session.backends import Node, Window

Check = Callable[[Node], bool]


@dataclass(frozen=True)
class Selector:
    text: str | None = None
    text_contains: str | None = None
    text_matches: str | re.Pattern[str] | None = None
    id: str | None = None
    desc: str | None = None
    desc_contains: str | None = None
    class_name: str | None = None
    package: str | None = None
    clickable: bool | None = None
    long_clickable: bool | None = None
    focused: bool | None = None
    focusable: bool | None = None
    enabled: bool | None = None
    checked: bool | None = None
    selected: bool | None = None
    scrollable: bool | None = None
    editable: bool | None = None
    visible: bool | None = None
    role: str | None = None
    """The role a screen reader speaks (`Tab`, `slider`), exact."""
    state: str | None = None
    """The state description, exact."""
    error: str | None = None
    """The error text a field shows, exact."""
    action: str | None = None
    """One of the node's accessibility actions beyond its flags (`expand`, a custom action's label)."""
    important: bool | None = None
    """Important for accessibility (False: a node screen readers skip)."""
    window: int | str | None = None
    within: Any = None
    """An Element (anything with a `ref`) or a ref."""
    xpath: str | None = None
    """An XPath 1.0 expression over the dump's XML view (mirror/xpath.py); the other criteria filter
    what it selects."""

    def __post_init__(self) -> None:
        given = self.__dict__
        if list(given.values()).count(None) == len(_CRITERIA):  # all() over a generator, at C speed
            raise InvalidSelector("a selector needs at least one criterion (text=, id=, desc=, class_name=, ...)")
        for name, value in given.items():
            if value is not None:
                _check_type(name, value)
        if isinstance(self.text_matches, str):
            try:
                re.compile(self.text_matches)
            except re.error as exc:
                raise InvalidSelector(f"text_matches is not a valid regular expression: {exc}") from None
        if self.xpath is not None:
            compile_xpath(self.xpath)
        # the compiled matcher, looked up once: the queries take it from here (not a field: eq,
        # hash and repr are the criteria's)
        matcher = _compiled(self.terms())
        object.__setattr__(self, "_matcher", matcher)
        if self.xpath is None and self.within is None and self.window is None:
            # a query over the whole view (most are): the compiled loops over `view.entries`, or
            # the windows' text indexes where a text criterion can use them, stand in for the two
            # methods below, one call from the caller to the query
            indexed = _indexed(self.terms())
            object.__setattr__(self, "select", indexed.select if indexed else matcher.select_view)
            object.__setattr__(self, "first", indexed.first if indexed else matcher.first_view)

    @classmethod
    def of(cls, criteria: Mapping[str, Any]) -> Selector:
        """The selector of these criteria, checked when first built and kept: the same criteria
        again (the same names, values and types of values) return it without a check."""
        within = criteria.get("within")
        if within is not None and type(within) is not int:  # an element: kept, it would keep its mirror alive
            return cls._checked(criteria)
        try:
            key = (tuple(criteria.items()), tuple(map(type, criteria.values())))
            cached = _built.get(key)
        except TypeError:  # a value that cannot be a key
            return cls._checked(criteria)
        if cached is None:
            cached = cls._checked(criteria)
            if len(_built) >= BUILT_SELECTORS:
                _built.clear()
            _built[key] = cached
        return cached

    @classmethod
    def _checked(cls, criteria: Mapping[str, Any]) -> Selector:
        if not criteria.keys() <= _KNOWN:
            raise InvalidSelector(_unknown(sorted(set(criteria) - _KNOWN)))
        if None in criteria.values():
            raise InvalidSelector(_none_given(next(name for name, value in criteria.items() if value is None)))
        return cls(**criteria)

    def describe(self) -> str:
        parts = []
        for f in fields(self):
            value = getattr(self, f.name)
            if value is None:
                continue
            if f.name == "within":
                value = f"@{_ref_of(value)}"
            elif isinstance(value, re.Pattern):
                value = value.pattern
            parts.append(f"{f.name}={value!r}" if f.name != "within" else f"within={value}")
        return ", ".join(parts)

    # --- matching --------------------------------------------------------------------------------

    def terms(self) -> tuple[tuple[str, Any], ...]:
        """The node criteria given (scope criteria, window= and within=, left out), as
        (name, value) pairs in a fixed order: what a compiled matcher is built and cached from."""
        out: list[tuple[str, Any]] = []
        for name in _TERMS:
            value = getattr(self, name)
            if value is not None:
                out.append((name, bool(value) if name in _FLAGS else value))
        return tuple(out)

    def checks(self) -> list[Check]:
        """One predicate per criterion (the nearest candidates count how many a node meets)."""
        return [_compiled((term,)).test for term in self.terms()]

    def matcher(self) -> Matcher:
        matcher: Matcher = self.__dict__["_matcher"]
        return matcher

    def select(self, view: View) -> list[Entry]:
        """The matching entries, top-most window first, each window in pre-order."""
        return self.matcher().select(self._scope(view))

    def first(self, view: View) -> Entry | None:
        """The first entry `select` would return, found without looking further."""
        return self.matcher().first(self._scope(view))

    def _scope(self, view: View) -> Iterable[Entry]:
        if self.xpath is not None:
            scope = self._window_scope(view) if self.within is not None or self.window is not None else None
            context = _ref_of(self.within) if self.within is not None else None
            return select_xpath(view, self.xpath, scope, context)
        return self._window_scope(view)

    def _window_scope(self, view: View) -> Iterable[Entry]:
        entries: Iterable[Entry] = view.entries
        if self.within is not None:
            anchor = view.entry(_ref_of(self.within))
            entries = view.subtree(anchor) if anchor is not None else ()
        if self.window is not None:
            wanted = {w.id for w in view.windows if window_matches(w, self.window)}
            entries = [e for e in entries if e.window.id in wanted]
        return entries


_CRITERIA = tuple(f.name for f in fields(Selector))
_KNOWN = frozenset(_CRITERIA)
BUILT_SELECTORS = 512
"""Selectors `Selector.of` keeps, by their criteria (emptied whole past it)."""
_built: dict[tuple[tuple[tuple[str, Any], ...], tuple[type, ...]], Selector] = {}


def _unknown(names: list[str]) -> str:
    """An unknown criterion named, with the closest known name where one is close (difflib)."""
    named = []
    for name in names:
        close = difflib.get_close_matches(name, _CRITERIA, n=1)
        named.append(f"{name!r} (did you mean {close[0]!r}?)" if close else repr(name))
    kind = "criterion" if len(names) == 1 else "criteria"
    return f"unknown selector {kind} {', '.join(named)}; known: {', '.join(sorted(_KNOWN))}"


def _none_given(name: str) -> str:
    """A criterion given as None would silently mean "any": say what to write instead."""
    if name == "text":
        return ("text=None is not a criterion (it would match any text): leave text= out to match any text, "
                "write text='' for an empty text, or xpath=\"//*[@text='']\" for an element with no text at all")
    return f"{name}=None is not a criterion (it would match anything): leave {name}= out instead"


def _check_type(name: str, value: object) -> None:
    """InvalidSelector naming the criterion when its value is not of its type: a state takes True
    or False (not "False", "no" or 1), a text criterion a str, `window` an id or a name, `within`
    an element or its ref."""
    if name in _FLAGS:
        ok, wanted = isinstance(value, bool), "True or False"
    elif name == "text_matches":
        ok, wanted = isinstance(value, (str, re.Pattern)), "a str or a compiled pattern"
    elif name == "window":
        ok, wanted = isinstance(value, (int, str)) and not isinstance(value, bool), "a window id (int) or a str"
    elif name == "xpath":
        ok, wanted = isinstance(value, str), "an XPath expression (a str)"
    elif name == "within":
        ref = getattr(value, "ref", value)  # an Element, or anything else carrying a ref
        ok, wanted = isinstance(ref, int) and not isinstance(ref, bool), "an element or its ref (int)"
    else:
        ok, wanted = isinstance(value, str), "a str"
    if not ok:
        raise InvalidSelector(f"{name}= takes {wanted}, not {value!r} (a {type(value).__name__})")


def window_matches(window: Window, spec: int | str) -> bool:
    if isinstance(spec, int):
        return window.id == spec
    return spec in (window.type, window.title, window.package)


# --- compiling criteria into one loop -------------------------------------------------------------

_FLAGS = ("clickable", "long_clickable", "focused", "focusable", "enabled", "checked", "selected",
          "scrollable", "editable", "visible", "important")
_TERMS = ("text", "text_contains", "text_matches", "id", "desc", "desc_contains", "class_name", "package",
          "role", "state", "error", "action", *_FLAGS)


def _term(name: str, value: Any, k: int, n: str = "n") -> tuple[str, dict[str, Any]]:
    """One criterion as a Python expression over the node `n` (or the expression given), and the
    objects it names (`c{k}`). A text value is written as a str literal, `str.__repr__` of it (the
    base class's, whatever a subclass says), which compiles back to the very value, so the loop
    reads its constants as a hand-written one does; a pattern's search is a name."""
    if name == "text":
        return f"{n}.text == {_literal(value)}", {}
    if name == "text_contains":
        return f"{n}.text is not None and {_literal(value)} in {n}.text", {}
    if name == "text_matches":
        return f"{n}.text is not None and c{k}({n}.text) is not None", {f"c{k}": re.compile(value).search}
    if name == "id":
        suffix = value if ":id/" in value else f":id/{value}"
        return f"{n}.res is not None and ({n}.res == {_literal(value)} or {n}.res.endswith({_literal(suffix)}))", {}
    if name == "desc":
        return f"{n}.desc == {_literal(value)}", {}
    if name == "desc_contains":
        return f"{n}.desc is not None and {_literal(value)} in {n}.desc", {}
    if name == "class_name":
        return f"({n}.class_name == {_literal(value)} or {n}.class_name.endswith({_literal('.' + value)}))", {}
    if name in ("package", "role", "state", "error"):
        return f"{n}.{name} == {_literal(value)}", {}
    if name == "action":
        return f"{_literal(value)} in {n}.actions", {}
    assert name in _FLAGS, name
    return (f"{n}.{name}" if value else f"not {n}.{name}"), {}


def _literal(value: str) -> str:
    return str.__repr__(value)


_SOURCE = """
def test(n):
    return {expr}

def select(entries):
    return [e for e in entries {select_loop}]

def first(entries):
    for e in entries:
        n = e.node
        if {expr}:
            return e
    return None

def select_view(view):
    return [e for e in view.entries {select_loop}]

def first_view(view):
    for e in view.entries:
        n = e.node
        if {expr}:
            return e
    return None
"""


_ONE_READ = frozenset({"text", "desc", "package", "role", "state", "error", "action", *_FLAGS})
"""The criteria whose test reads the node's field once."""


@dataclass(frozen=True)
class Matcher:
    """A selector's node criteria compiled into one expression: `test(node)`, and `select` and
    `first` over entries, each a single loop with the criteria inline."""

    test: Check
    select: Callable[[Iterable[Entry]], list[Entry]]
    first: Callable[[Iterable[Entry]], Entry | None]
    select_view: Callable[[View], list[Entry]]
    """`select` over a whole view's entries."""
    first_view: Callable[[View], Entry | None]


def _compile(terms: tuple[tuple[str, Any], ...]) -> Matcher:
    parts: list[str] = []
    namespace: dict[str, Any] = {}
    for k, (name, value) in enumerate(terms):
        expr, constants = _term(name, value, k)
        parts.append(expr)
        namespace.update(constants)
    expr = " and ".join(f"({part})" for part in parts) if parts else "True"
    if len(terms) == 1 and terms[0][0] in _ONE_READ:  # the field read once: no name for the node
        select_loop = "if " + _term(*terms[0], 0, n="e.node")[0]
    else:  # the node named as a hand-written loop names it (a walrus would make it a cell: 4x slower)
        select_loop = f"for n in (e.node,) if {expr}"
    source = _SOURCE.format(expr=expr, select_loop=select_loop)
    exec(compile(source, "<selector>", "exec"), namespace)  # noqa: S102 - our own source; values are names
    return Matcher(namespace["test"], namespace["select"], namespace["first"], namespace["select_view"],
                   namespace["first_view"])


_compiled = functools.lru_cache(maxsize=512)(_compile)
"""Compiled once per distinct set of terms: every value is a str, a pattern or a bool (hashable)."""


# --- a text criterion answered by the windows' text indexes ---------------------------------------


@dataclass(frozen=True)
class TextIndexed:
    """A whole-view query with a text criterion (`text=`, else `text_contains=`): each window's
    text index (mirror/text_index.py) gives the entries that meet it, and the compiled matcher of
    the other criteria tests only those. A window whose index does not answer (not built yet, a
    needle too frequent, a text holding the separator) is tested by the whole compiled matcher, so
    the matches and their order are the loop's: top-most window first, each in pre-order."""

    needle: str
    exact: bool
    """`text=` (the whole text) rather than `text_contains=`."""
    rest: Matcher | None
    """The other criteria; None when the text criterion is the only one."""
    whole: Matcher
    """All the criteria, for a window the index does not answer for."""

    def select(self, view: View) -> list[Entry]:
        windows = view.text_windows
        if windows is None:
            return self.whole.select_view(view)
        needle, exact, rest = self.needle, self.exact, self.rest
        found: list[Entry] = []
        for entries, index in windows:
            hits = index.equal_to(needle) if exact else index.containing(needle)
            if hits is None:
                found += self.whole.select(entries)
            elif rest is None:
                found += hits
            elif hits:
                found += rest.select(hits)
        return found

    def first(self, view: View) -> Entry | None:
        windows = view.text_windows
        if windows is None:
            return self.whole.first_view(view)
        needle, exact, rest = self.needle, self.exact, self.rest
        for entries, index in windows:
            hits = index.equal_to(needle) if exact else index.containing(needle)
            if hits is None:
                entry = self.whole.first(entries)
            elif rest is None:
                entry = hits[0] if hits else None
            else:
                entry = rest.first(hits)
            if entry is not None:
                return entry
        return None


def _indexed(terms: tuple[tuple[str, Any], ...]) -> TextIndexed | None:
    """The indexed form of a whole view's query, where a text criterion's needle lets the index
    answer exactly (`usable_needle`: not empty, without the separator); None otherwise."""
    for name in ("text", "text_contains"):
        value = dict(terms).get(name)
        needle = None if value is None else str.__str__(value)  # a plain str, as the loop's literal
        if needle is not None and usable_needle(needle):
            rest = tuple(term for term in terms if term[0] != name)
            return TextIndexed(needle, name == "text", _compiled(rest) if rest else None, _compiled(terms))
    return None


def _ref_of(value: Any) -> int:
    ref = getattr(value, "ref", value)
    if not isinstance(ref, int):
        raise InvalidSelector(f"within= takes an element or a ref, not {value!r}")
    return ref


# --- the nearest candidates, for a failed query ----------------------------------------------------


LIKENESS_CHARS = 200
"""Characters of each side a likeness looks at: a long text costs what its start costs, so that a
failed wait's message is built within 50 ms of its timeout at 5,000 nodes whatever the selector
(benches/bench_nearest.py, tests/faults/test_long_selectors.py)."""
PLAIN_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'})
"""Typographic quotes as plain ones for the likeness: a watcher on "Don't allow" is close to the
device's "Don’t allow" (Android's strings use ’ and “ ”)."""
CONTAINED = 0.8
"""The likeness of a node whose text holds the wanted text whole, at least."""


def nearest(selector: Selector, view: View | None, limit: int = 5) -> list[str]:
    """The nodes most like what the selector asks for, best first (tree order among equals), each
    with its likeness.

    Text criteria are scored against every node's text, description, resource id and hint (typographic
    quotes read as plain ones) with rapidfuzz's ratio (the normalized InDel similarity, what difflib's
    ratio approximates), at least CONTAINED when the node's text holds the wanted one; states and
    classes alone by the share of the criteria a node meets."""
    if view is None:
        return []
    wanted = [w[:LIKENESS_CHARS].lower().translate(PLAIN_QUOTES) for w in (
        selector.text, selector.text_contains, _pattern(selector.text_matches), selector.desc,
        selector.desc_contains, selector.id, *literals(selector.xpath or "")) if isinstance(w, str) and w]
    entries = view.entries
    scores = _text_likeness(wanted, entries) if wanted else _criteria_met(selector, entries)
    ranked = sorted((pair for pair in zip(scores, entries, strict=True) if pair[0] > 0.3), key=lambda pair: -pair[0])
    return [f"{describe_entry(entry)} (likeness {score:.2f})" for score, entry in ranked[:limit]]


def _text_likeness(wanted: list[str], entries: Sequence[Entry]) -> list[float]:
    """Per entry, the best likeness of any wanted text to any of its texts (0 for none). Pair by
    pair: rapidfuzz's cdist would import numpy on the first failed query, 0.2 s on a busy host."""
    ratio = fuzz.ratio
    scores = []
    for entry in entries:
        node = entry.node
        best = 0.0
        for have in (node.text, node.desc, node.res, node.hint):
            if isinstance(have, str) and have:
                have = have[:LIKENESS_CHARS].lower().translate(PLAIN_QUOTES)
                for w in wanted:
                    likeness = ratio(w, have) / 100
                    if likeness < CONTAINED and w in have:
                        likeness = CONTAINED
                    if likeness > best:
                        best = likeness
        scores.append(best)
    return scores


def _criteria_met(selector: Selector, entries: Sequence[Entry]) -> list[float]:
    """Per entry, the share of the selector's node criteria it meets."""
    checks = selector.checks()
    return [sum(1 for check in checks if check(entry.node)) / max(1, len(checks)) for entry in entries]


def _pattern(value: str | re.Pattern[str] | None) -> str | None:
    if isinstance(value, re.Pattern):
        return value.pattern
    return value


def describe_entry(entry: Entry) -> str:
    """`@17 TextView "Login" id=tab_login clickable [0,210][360,336]`"""
    n = entry.node
    parts = [f"@{entry.ref}", n.class_name.rsplit(".", 1)[-1]]
    if n.text is not None:
        parts.append(_quote(n.text))
    if n.desc:
        parts.append(f"desc={_quote(n.desc)}")
    if n.res:
        parts.append(f"id={n.res.split(':id/', 1)[-1]}")
    if n.hint and n.text is None:
        parts.append(f"hint={_quote(n.hint)}")
    parts.extend(flag for flag, on in (
        ("clickable", n.clickable), ("focused", n.focused), ("editable", n.editable),
        ("scrollable", n.scrollable), ("checked", n.checked), ("selected", n.selected),
        ("disabled", not n.enabled), ("invisible", not n.visible), ("password", n.password),
    ) if on)
    left, top, right, bottom = n.bounds
    parts.append(f"[{left},{top}][{right},{bottom}]")
    if n.scroll is not None:
        s = n.scroll
        if s.items is not None:
            parts.append(f"items {s.first}..{s.last} of {s.items}")
    return " ".join(parts)


def _quote(text: str, limit: int = 60) -> str:
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


__tracebackhide__ = hide_our_frames  # pytest reports our failures at the test's line, not in these frames
