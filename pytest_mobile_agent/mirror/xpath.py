"""XPath over the replica (issue 25, item 4): `screen.find(xpath="//android.widget.Button[@text='Login']")`.

An expression is evaluated by lxml (libxml2's XPath 1.0, the dialect Appium's UiAutomator2 server and
uiautomator2 evaluate) over an XML view of the replica, built on a generation's first query and
kept while that generation is the newest. Only the windows that changed since are written and
parsed again (issue 40, item 3): a window whose text is one parsed before (its entries kept by the
replica, or the same nodes read again under new ids) moves its parsed elements into the new
document, each element standing for the new entry at its place; a node whose content was written
before reuses its attributes' text. So the first query after the status bar's clock ticks costs
that window's six nodes, not the Big tab's 573 (benches/bench_xpath.py). The view is what
uiautomator's dump writes, so an expression copied from Appium Inspector or uiautomator2 finds the
same nodes:

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
import operator
import re
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any
from xml.sax.saxutils import quoteattr

from lxml import etree

from pytest_mobile_agent.errors import InvalidSelector
from pytest_mobile_agent.mirror.replica import Entry, View
from pytest_mobile_agent.session.backends import Node

_NOT_XML = re.compile("[^\u0009\u000a\u000d\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_NOT_IN_A_NAME = re.compile(r"[^A-Za-z0-9_.\-]")
_NEEDS_ESCAPING = re.compile("[&<>\"'\t\n\r]|" + _NOT_XML.pattern)
CACHED_VIEWS = 4
"""XML views kept, the newest first: one per mirror in use is enough (a new generation replaces it)."""
CACHED_WINDOWS = 16
"""Windows' texts kept, by their entries (the replica keeps a window's entries while it is unchanged),
and windows' parsed elements, by their text."""
CACHED_NODES = 20_000
"""Nodes' attributes kept, by their content (cleared whole past it: four 5,000-node screens)."""


@dataclass
class XmlView:
    """One replica generation as uiautomator's dump: the document, and each element's entry."""

    view: View
    root: etree._Element
    entries: dict[etree._Element, Entry]
    elements: dict[int, etree._Element]
    """Each entry's element, by ref."""
    stale: bool = False
    """A newer view took some of its windows' elements: it is built again on its next query."""

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
_lock = threading.Lock()


def xml_view(view: View) -> XmlView:
    """The XML view of `view`, built on its first query and kept while it is among the newest."""
    with _lock:
        for cached in _recent:
            if cached.view is view:
                if not cached.stale:
                    return cached
                _recent.remove(cached)
                break
        built = build(view)
        _recent.insert(0, built)
        del _recent[CACHED_VIEWS:]
        return built


@dataclass
class _WindowTree:
    """A window's text parsed once: its top elements and every element in document order, and the
    view whose document holds them now."""

    tops: list[etree._Element]
    elements: list[etree._Element]
    holder: XmlView | None = None


_window_trees: dict[str, _WindowTree] = {}


def build(view: View) -> XmlView:
    """The XML of `view`: each window's elements parsed from its text by libxml2 (twice as fast as
    making them one by one from Python), or taken from the document that holds them when that text
    was parsed before; and each element's entry, by document order.

    The document of the view that holds the largest window taken is reused, its changed windows
    replaced in place: the elements of an unchanged window (the Big tab's 563) do not move."""
    entries: dict[etree._Element, Entry] = {}
    elements: dict[int, etree._Element] = {}
    taken: list[_WindowTree] = []
    for window in view.windows:
        window_entries = view.by_window.get(window.id, ())
        tree = _window_tree(_window_text(window_entries), taken)
        entries.update(zip(tree.elements, window_entries, strict=True))
        elements.update(zip(map(_ref, window_entries), tree.elements, strict=True))
        taken.append(tree)
    tops = [top for tree in taken for top in tree.tops]
    root = _root_with(tops, taken)
    root.set("rotation", str(view.snapshot.display.rotation))
    built = XmlView(view, root, entries, elements)
    for tree in taken:
        if tree.holder is not None and tree.holder is not built:
            tree.holder.stale = True
        tree.holder = built
    return built


def _root_with(tops: list[etree._Element], taken: list[_WindowTree]) -> etree._Element:
    """A `hierarchy` whose children are `tops`, in order: the root that holds the largest of the
    windows already (its other children replaced one for one where they differ), else a new one."""
    held = [tree for tree in taken if tree.holder is not None]
    if held:
        root = max(held, key=lambda tree: len(tree.elements)).tops[0].getparent()
        if root is not None and root.tag == "hierarchy":
            children = list(root)
            if len(children) == len(tops) and all(
                    child is top or top.getparent() is not root for child, top in zip(children, tops, strict=True)):
                for child, top in zip(children, tops, strict=True):
                    if child is not top:
                        root.replace(child, top)
            else:
                root[:] = tops
            return root
    root = etree.Element("hierarchy")
    root.extend(tops)  # moved from the document that parsed them
    return root


_ref = operator.attrgetter("ref")


def _window_tree(text: str, taken: list[_WindowTree]) -> _WindowTree:
    """The parsed elements of a window's text: those parsed before unless this view took them
    already (two windows of one text), else parsed now and kept."""
    tree: _WindowTree | None = _recall(_window_trees, text)
    if tree is not None and all(tree is not other for other in taken):
        return tree
    wrapper = etree.fromstring(f"<w>{text}</w>")
    tree = _WindowTree(list(wrapper), list(wrapper.iter())[1:])
    if text not in _window_trees:
        _remember(_window_trees, text, tree)
    return tree


_window_texts: dict[int, tuple[tuple[Entry, ...], str]] = {}
_node_texts: dict[tuple[object, ...], tuple[str, str]] = {}


def _window_text(window_entries: tuple[Entry, ...]) -> str:
    """One window's elements, from the text written for these very entries, or for entries of the
    same content (the window read again under new ids), when there is one."""
    key = id(window_entries)
    cached: tuple[tuple[Entry, ...], str] | None = _recall(_window_texts, key)
    if cached is not None and cached[0] is window_entries:
        return cached[1]
    nodes = list(map(_entry_node, window_entries))
    content = (tuple(map(_written, nodes)), tuple(map(_depth, nodes)), tuple(map(_parent, window_entries)))
    text: str | None = _recall(_texts_by_content, content)
    if text is None:
        parts: list[str] = []
        _window_xml(window_entries, parts)
        text = "".join(parts)
        _remember(_texts_by_content, content, text)
    _remember(_window_texts, key, (window_entries, text))  # the tuple held: its id names no other while kept
    return text


def _remember(cache: dict[Any, Any], key: Any, value: Any) -> None:
    """Keep `value`, the least recently used one going when the cache is full: a window that stays
    (the app's) is not pushed out by one that changes every second (the status bar's clock)."""
    if len(cache) >= CACHED_WINDOWS:
        del cache[next(iter(cache))]
    cache[key] = value


def _recall(cache: dict[Any, Any], key: Any) -> Any:
    """The kept value, made the most recently used (None when there is none)."""
    value = cache.pop(key, None)
    if value is not None:
        cache[key] = value
    return value


_texts_by_content: dict[tuple[object, ...], str] = {}
_entry_node = operator.attrgetter("node")
_depth = operator.attrgetter("depth")
_parent = operator.attrgetter("parent")


def _window_xml(window_entries: Sequence[Entry], parts: list[str]) -> None:
    """One window's nodes (pre-order, with depths) as nested elements."""
    open_tags: list[tuple[int, str]] = []  # (depth, tag) of the elements not closed yet
    children: dict[int | None, int] = {}  # parent ref -> children written so far
    node_texts = _node_texts
    if len(node_texts) > CACHED_NODES:
        node_texts.clear()
    for entry in window_entries:
        node = entry.node
        depth = node.depth
        while open_tags and open_tags[-1][0] >= depth:
            parts.append(f"</{open_tags.pop()[1]}>")
        index = children.get(entry.parent, 0) if open_tags else 0
        children[entry.parent] = index + 1
        content = _written(node)
        text = node_texts.get(content)
        if text is None:
            text = node_texts[content] = _element_text(node)
        parts.append(f'<{text[0]} index="{index}"{text[1]}>')
        open_tags.append((depth, text[0]))
    while open_tags:
        parts.append(f"</{open_tags.pop()[1]}>")


_written = operator.attrgetter("class_name", "text", "res", "package", "desc", "checkable", "checked", "clickable",
                               "enabled", "focusable", "focused", "scrollable", "long_clickable", "password",
                               "selected", "bounds", "visible", "hint")
"""What a node's element shows but its index: equal for two nodes, their elements' attributes are."""


def _element_text(node: Node) -> tuple[str, str]:
    """The element's name, and its attributes after `index` as uiautomator's dump writes them."""
    left, top, right, bottom = node.bounds
    return tag_of(node.class_name), (
        f' text={_attr(node.text)} resource-id={_attr(node.res)} '
        f'class={_attr(node.class_name)} package={_attr(node.package)} content-desc={_attr(node.desc)} '
        f'checkable="{_flag(node.checkable)}" checked="{_flag(node.checked)}" '
        f'clickable="{_flag(node.clickable)}" enabled="{_flag(node.enabled)}" '
        f'focusable="{_flag(node.focusable)}" focused="{_flag(node.focused)}" '
        f'scrollable="{_flag(node.scrollable)}" long-clickable="{_flag(node.long_clickable)}" '
        f'password="{_flag(node.password)}" selected="{_flag(node.selected)}" '
        f'bounds="[{left},{top}][{right},{bottom}]" displayed="{_flag(node.visible)}" hint={_attr(node.hint)}')


@functools.lru_cache(maxsize=1024)
def tag_of(class_name: str) -> str:
    """The element name of a class, as Appium's server writes it: characters a name cannot hold as `_`."""
    name = _NOT_IN_A_NAME.sub("_", class_name) or "node"
    return name if name[0].isalpha() or name[0] == "_" else "_" + name


def _attr(value: str | None) -> str:
    """An attribute's quoted value: None as "", characters XML cannot hold as `?`."""
    if not value:
        return '""'
    if _NEEDS_ESCAPING.search(value) is None:
        return f'"{value}"'
    return quoteattr(_NOT_XML.sub("?", value))


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
