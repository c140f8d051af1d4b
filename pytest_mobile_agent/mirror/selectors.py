"""Selectors: which nodes of the replica an element query means.

    Selector(text="Login")                      exact text
    Selector(text_contains="Log")               substring
    Selector(text_matches=r"Cell \\d+")          regular expression (search)
    Selector(id="tab_login")                    resource id, whole or the part after ":id/"
    Selector(desc="Close"), Selector(desc_contains="clo")
    Selector(class_name="TextView")             whole class name or its last part
    Selector(clickable=True, focused=True, ...)  node states
    Selector(window="input_method")             a window by id, type, title or package
    Selector(within=element)                    descendants of an element

Every given criterion must hold. A query over the 573 nodes of the fixture's Big tab takes well
under half a millisecond: criteria are compiled once into a short list of checks.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, fields
from typing import Any

from pytest_mobile_agent.errors import InvalidSelector
from pytest_mobile_agent.mirror.replica import Entry, View
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
    window: int | str | None = None
    within: Any = None
    """An Element (anything with a `ref`) or a ref."""

    def __post_init__(self) -> None:
        if all(getattr(self, f.name) is None for f in fields(self)):
            raise InvalidSelector("a selector needs at least one criterion (text=, id=, desc=, class_name=, ...)")
        if isinstance(self.text_matches, str):
            try:
                re.compile(self.text_matches)
            except re.error as exc:
                raise InvalidSelector(f"text_matches is not a valid regular expression: {exc}") from None

    @classmethod
    def of(cls, criteria: dict[str, Any]) -> Selector:
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(criteria) - known)
        if unknown:
            raise InvalidSelector(f"unknown selector criteria {unknown}; known: {sorted(known)}")
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

    def checks(self) -> list[Check]:
        out: list[Check] = []
        if self.text is not None:
            text = self.text
            out.append(lambda n: n.text == text)
        if self.text_contains is not None:
            part = self.text_contains
            out.append(lambda n: n.text is not None and part in n.text)
        if self.text_matches is not None:
            search = re.compile(self.text_matches).search
            out.append(lambda n: n.text is not None and search(n.text) is not None)
        if self.id is not None:
            out.append(_resource_check(self.id))
        if self.desc is not None:
            desc = self.desc
            out.append(lambda n: n.desc == desc)
        if self.desc_contains is not None:
            dpart = self.desc_contains
            out.append(lambda n: n.desc is not None and dpart in n.desc)
        if self.class_name is not None:
            out.append(_class_check(self.class_name))
        if self.package is not None:
            package = self.package
            out.append(lambda n: n.package == package)
        for name in ("clickable", "long_clickable", "focused", "focusable", "enabled", "checked",
                     "selected", "scrollable", "editable", "visible"):
            wanted = getattr(self, name)
            if wanted is not None:
                out.append(_flag_check(name, bool(wanted)))
        return out

    def select(self, view: View) -> list[Entry]:
        """The matching entries, top-most window first, each window in pre-order."""
        entries: Iterable[Entry] = self._scope(view)
        checks = self.checks()
        if not checks:
            return list(entries)
        if len(checks) == 1:
            check = checks[0]
            return [e for e in entries if check(e.node)]
        return [e for e in entries if all(c(e.node) for c in checks)]

    def _scope(self, view: View) -> Iterable[Entry]:
        entries: Iterable[Entry] = view.entries
        if self.within is not None:
            anchor = view.entry(_ref_of(self.within))
            entries = view.subtree(anchor) if anchor is not None else ()
        if self.window is not None:
            wanted = {w.id for w in view.windows if window_matches(w, self.window)}
            entries = [e for e in entries if e.window.id in wanted]
        return entries


def window_matches(window: Window, spec: int | str) -> bool:
    if isinstance(spec, int):
        return window.id == spec
    return spec in (window.type, window.title, window.package)


def _resource_check(wanted: str) -> Check:
    suffix = wanted if ":id/" in wanted else f":id/{wanted}"

    def check(n: Node) -> bool:
        res = n.res
        return res is not None and (res == wanted or res.endswith(suffix))

    return check


def _class_check(wanted: str) -> Check:
    suffix = "." + wanted

    def check(n: Node) -> bool:
        return n.class_name == wanted or n.class_name.endswith(suffix)

    return check


def _flag_check(name: str, wanted: bool) -> Check:
    def check(n: Node) -> bool:
        return bool(getattr(n, name)) is wanted

    return check


def _ref_of(value: Any) -> int:
    ref = getattr(value, "ref", value)
    if not isinstance(ref, int):
        raise InvalidSelector(f"within= takes an element or a ref, not {value!r}")
    return ref


# --- the nearest candidates, for a failed query ----------------------------------------------------


def nearest(selector: Selector, view: View | None, limit: int = 5) -> list[str]:
    """The nodes most like what the selector asks for, best first, each with its likeness."""
    if view is None:
        return []
    wanted = [w for w in (selector.text, selector.text_contains, _pattern(selector.text_matches),
                          selector.desc, selector.desc_contains, selector.id) if w]
    checks = selector.checks()
    scored: list[tuple[float, Entry]] = []
    for entry in view.entries:
        node = entry.node
        if wanted:
            haves = [h for h in (node.text, node.desc, node.res, node.hint) if h]
            score = max((_likeness(w, h) for w in wanted for h in haves), default=0.0)
        else:  # states and classes only: the share of the criteria a node meets
            score = sum(1 for c in checks if c(node)) / max(1, len(checks))
        if score > 0.3:
            scored.append((score, entry))
    scored.sort(key=lambda pair: -pair[0])
    return [f"{describe_entry(entry)} (likeness {score:.2f})" for score, entry in scored[:limit]]


def _likeness(wanted: str, have: str) -> float:
    if wanted.lower() in have.lower():
        return max(0.8, difflib.SequenceMatcher(None, wanted.lower(), have.lower()).ratio())
    return difflib.SequenceMatcher(None, wanted.lower(), have.lower()).ratio()


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
