"""XPath over the replica (issue 25, item 4): `screen.find(xpath="//android.widget.Button[@text='Login']")`.

An expression is evaluated by lxml (libxml2's XPath 1.0, the dialect Appium's UiAutomator2 server and
uiautomator2 evaluate) over an XML view of the replica, built once per replica generation and kept
while that generation is the newest. The view is what uiautomator's dump writes, so an expression
copied from Appium Inspector or uiautomator2 finds the same nodes:

* the root `hierarchy` (attribute `rotation`), each window's root under it, top-most window first
  (UiDevice.dumpWindowHierarchy writes every window root; document order is then `find`'s order);
* each node an element named after its class, as Appium's server names it (`android.widget.Button`;
  a character a name cannot hold becomes `_`), with uiautomator dump's attributes: `index` (among its
  siblings), `text`, `resource-id`, `class`, `package`, `content-desc`, `checkable`, `checked`,
  `clickable`, `enabled`, `focusable`, `focused`, `scrollable`, `long-clickable`, `password`,
  `selected`, `bounds` as `[l,t][r,b]`; a missing text, id or description is "", characters XML
  cannot hold are `?` (AOSP: frameworks/testing uiautomator, AccessibilityNodeInfoDumper.java
  `dumpNodeRec` and `stripInvalidXMLChars`, androidx.test.uiautomator 2.3); besides them
  `displayed` and `hint`, as Appium's server writes them.

Why lxml rather than elementpath: the query must take at most 3 ms over the Big tab's 573 nodes
(docs/performance.md, benches/bench_xpath.py). lxml evaluates in C (a query there takes tens of
microseconds, building the view about a millisecond), where elementpath walks the tree in Python;
and libxml2's XPath 1.0 is what the tools users copy expressions from speak. lxml reports a syntax
error with its column, which `InvalidSelector` names.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from xml.sax.saxutils import quoteattr

from lxml import etree

from pytest_mobile_agent.errors import InvalidSelector
from pytest_mobile_agent.mirror.replica import Entry, View

_NOT_XML = re.compile("[^\u0009\u000a\u000d\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_NOT_IN_A_NAME = re.compile(r"[^A-Za-z0-9_.\-]")
CACHED_VIEWS = 4
"""XML views kept, the newest first: one per mirror in use is enough (a new generation replaces it)."""


@dataclass(frozen=True)
class XmlView:
    """One replica generation as uiautomator's dump: the document, and each element's entry."""

    view: View
    root: etree._Element
    entries: dict[etree._Element, Entry]
    elements: dict[int, etree._Element]
    """Each entry's element, by ref."""

    def select(self, xpath: etree.XPath, expression: str, context: int | None = None) -> list[Entry]:
        """The entries the expression selects, in document order; a relative expression starts at
        the node whose ref is `context` (the element of `within=`), else at the root."""
        start = self.elements.get(context, self.root) if context is not None else self.root
        try:
            found = xpath(start)
        except etree.XPathEvalError as exc:
            raise InvalidSelector(f"xpath= cannot be evaluated: {exc}: {expression!r}") from None
        if not isinstance(found, list) or any(not isinstance(item, etree._Element) for item in found):
            raise InvalidSelector(f"xpath= must select elements (nodes of the screen), not {_kind(found)}: "
                                  f"{expression!r}")
        entries = self.entries
        return [entries[item] for item in found if item in entries]


def compile_xpath(expression: str) -> etree.XPath:
    """The compiled expression; InvalidSelector naming the position of a syntax error."""
    if not isinstance(expression, str) or not expression.strip():
        raise InvalidSelector(f"xpath= takes an XPath expression (a str), not {expression!r}")
    return _compiled(expression)


@functools.lru_cache(maxsize=256)
def _compiled(expression: str) -> etree.XPath:
    try:
        return etree.XPath(expression)
    except (ValueError, UnicodeError) as exc:  # a NUL, a control character, a lone surrogate
        raise InvalidSelector(f"xpath= holds a character XPath cannot: {exc}: {expression!r}") from None
    except etree.XPathSyntaxError as exc:
        column = next((entry.column for entry in exc.error_log), 0)
        pointer = " " * max(0, column) + "^"
        raise InvalidSelector(f"xpath= is not a valid XPath expression: {exc} at position {column}:\n"
                              f"  {expression}\n  {pointer}") from None


_recent: list[XmlView] = []


def xml_view(view: View) -> XmlView:
    """The XML view of `view`, built on its first query and kept while it is among the newest."""
    for cached in _recent:
        if cached.view is view:
            return cached
    built = build(view)
    _recent.insert(0, built)
    del _recent[CACHED_VIEWS:]
    return built


def build(view: View) -> XmlView:
    """The XML of `view`, written as text and parsed by libxml2 in one call (twice as fast as making
    the elements one by one from Python), and each element's entry, by document order."""
    parts = [f'<hierarchy rotation="{view.snapshot.display.rotation}">']
    order: list[Entry] = []
    for window in view.windows:
        _window_xml(view.by_window.get(window.id, ()), parts, order)
    parts.append("</hierarchy>")
    root = etree.fromstring("".join(parts))
    elements = root.iter()
    next(elements)  # the hierarchy
    entries = dict(zip(elements, order, strict=True))
    return XmlView(view, root, entries, {entry.ref: element for element, entry in entries.items()})


def _window_xml(window_entries: Sequence[Entry], parts: list[str], order: list[Entry]) -> None:
    """One window's nodes (pre-order, with depths) as nested elements."""
    open_tags: list[tuple[int, str]] = []  # (depth, tag) of the elements not closed yet
    children: dict[int | None, int] = {}  # parent ref -> children written so far
    for entry in window_entries:
        node = entry.node
        while open_tags and open_tags[-1][0] >= node.depth:
            parts.append(f"</{open_tags.pop()[1]}>")
        index = children.get(entry.parent, 0) if open_tags else 0
        children[entry.parent] = index + 1
        tag = tag_of(node.class_name)
        left, top, right, bottom = node.bounds
        parts.append(
            f'<{tag} index="{index}" text={_attr(node.text)} resource-id={_attr(node.res)} '
            f'class={_attr(node.class_name)} package={_attr(node.package)} content-desc={_attr(node.desc)} '
            f'checkable="{_flag(node.checkable)}" checked="{_flag(node.checked)}" '
            f'clickable="{_flag(node.clickable)}" enabled="{_flag(node.enabled)}" '
            f'focusable="{_flag(node.focusable)}" focused="{_flag(node.focused)}" '
            f'scrollable="{_flag(node.scrollable)}" long-clickable="{_flag(node.long_clickable)}" '
            f'password="{_flag(node.password)}" selected="{_flag(node.selected)}" '
            f'bounds="[{left},{top}][{right},{bottom}]" displayed="{_flag(node.visible)}" hint={_attr(node.hint)}>')
        open_tags.append((node.depth, tag))
        order.append(entry)
    while open_tags:
        parts.append(f"</{open_tags.pop()[1]}>")


@functools.lru_cache(maxsize=1024)
def tag_of(class_name: str) -> str:
    """The element name of a class, as Appium's server writes it: characters a name cannot hold as `_`."""
    name = _NOT_IN_A_NAME.sub("_", class_name) or "node"
    return name if name[0].isalpha() or name[0] == "_" else "_" + name


def _attr(value: str | None) -> str:
    """An attribute's quoted value: None as "", characters XML cannot hold as `?`."""
    return '""' if not value else quoteattr(_NOT_XML.sub("?", value))


def _flag(value: bool) -> str:
    return "true" if value else "false"


def _kind(found: object) -> str:
    if isinstance(found, list):
        return "attribute values or text" if found else "nothing"
    if isinstance(found, str):
        return f"a string ({str(found)!r})"
    return f"a {type(found).__name__} ({found!r})"


def literals(expression: str) -> list[str]:
    """The string literals an expression compares with: what the nearest candidates look for."""
    return [a or b for a, b in re.findall(r"'([^']*)'|\"([^\"]*)\"", expression) if a or b]


def select_xpath(view: View, expression: str, scope: Iterable[Entry] | None = None,
                 context: int | None = None) -> list[Entry]:
    """The entries of `view` the expression selects (among `scope` when given), in document order;
    a relative expression starts at the node whose ref is `context`."""
    found = xml_view(view).select(compile_xpath(expression), expression, context)
    if scope is None:
        return found
    allowed = {entry.ref for entry in scope}
    return [entry for entry in found if entry.ref in allowed]
