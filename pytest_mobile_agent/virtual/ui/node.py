"""Nodes and windows of the UI model, and their protocol-shaped dicts.

A `Node` is one accessibility node as the platform would expose it. Its `uid` is the id the agent
double reports: unique across the device, never reused, and replaced when a screen is torn down and
composed again. A `Window` owns a tree of nodes and caches their protocol dicts (`NODE` in
docs/protocol.md) until it is marked changed, so a warm read of the 573 nodes of the Big tab costs a
list lookup, not 573 dict builds.

A reader that lets the app run during its read (the agent double, between slices of `READ_SLICE`
nodes) gets `TornDown` when a node it has still to read has left the window's tree meanwhile: the
subtree was torn down under the read (a Compose screen replaced), and the reader starts again from
the window's root, as the platform's reader finds a child gone.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from pytest_mobile_agent.virtual.ui.window_types import TYPE_BASE_APPLICATION

Bounds = tuple[int, int, int, int]  # left, top, right, bottom in physical pixels

#: nodes read between two calls of a read's `between` (the Java reader checks its deadline as often)
READ_SLICE = 64

_node_ids = itertools.count(100)
_window_ids = itertools.count(10)


def next_node_id() -> int:
    return next(_node_ids)


def next_window_id() -> int:
    return next(_window_ids)


@dataclass(frozen=True)
class ScrollInfo:
    """Scroll semantics of a scrollable container (`scroll` in a NODE)."""

    vertical: bool
    can_back: bool
    can_forward: bool
    items: int | None
    first: int | None
    last: int | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "horizontal": not self.vertical,
            "vertical": self.vertical,
            "can_back": self.can_back,
            "can_forward": self.can_forward,
            "items": self.items,
            "first": self.first,
            "last": self.last,
        }


class Scroller(Protocol):
    """What a scrollable node moves: content offset in pixels along its axis."""

    def offset(self) -> float: ...

    def max_offset(self) -> float: ...

    def scroll_to(self, offset: float) -> None: ...


@dataclass(eq=False)
class Node:
    """One accessibility node. Behaviour hooks are plain callables set by the screen that built it."""

    cls: str
    bounds: Bounds
    text: str | None = None
    desc: str | None = None
    res: str | None = None
    hint: str | None = None
    package: str = ""
    clickable: bool = False
    long_clickable: bool = False
    focusable: bool = False
    focused: bool = False
    editable: bool = False
    checkable: bool = False
    checked: bool = False
    enabled: bool = True
    selected: bool = False
    scrollable: bool = False
    visible: bool = True
    password: bool = False
    scroll: ScrollInfo | None = None
    children: list[Node] = field(default_factory=list)
    parent: Node | None = None
    uid: int = field(default_factory=next_node_id)
    #: whether ACTION_SET_TEXT works on this node (Compose and EditText fields: yes)
    accepts_set_text: bool = False
    #: the app refuses ACTION_PASTE (performAction answers false)
    refuses_paste_action: bool = False
    #: KEYCODE_PASTE does nothing here (a custom view without TextView.doKeyDown's paste)
    ignores_paste_key: bool = False
    #: the field that takes input focus right after this one gets it (a form's delayed
    #: requestFocus on another field: View.requestFocus posted by the app), or None
    focus_taken_by: Node | None = field(default=None, repr=False)
    #: the field focus moves to once a character is typed here (an auto-advancing OTP box), or None
    advances_to: Node | None = field(default=None, repr=False)
    on_click: Callable[[], object] | None = None
    #: what the app does with the field's new text (ACTION_SET_TEXT, or the IME's keys) besides showing
    #: it (a WebView's field sets the page's value: ui/webview.py), or None
    on_text_set: Callable[[str], object] | None = None
    on_long_click: Callable[[], object] | None = None
    #: for a scrollable container: what a drag or a fling moves
    scroller: Scroller | None = None
    #: how many more times the platform's getChild returns null for this node (-1: every time), as
    #: it does for a provider's or a WebView's node it cannot fetch, or a binder call that timed out
    null_reads: int = 0
    #: where the node is laid out when its parent shows only part of it (a list row half scrolled
    #: out): `bounds` is the visible part, as AccessibilityNodeInfo.getBoundsInScreen gives it, and
    #: the node is drawn at this size, clipped to `bounds` (View.draw under its parent's clip)
    layout_bounds: Bounds | None = None

    def fetch(self) -> bool:
        """One getChild call for this node: False when the platform gives null."""
        if self.null_reads == 0:
            return True
        if self.null_reads > 0:
            self.null_reads -= 1
        return False

    def add(self, child: Node) -> Node:
        child.parent = self
        if not child.package:
            child.package = self.package
        self.children.append(child)
        return child

    def contains(self, x: int, y: int) -> bool:
        left, top, right, bottom = self.bounds
        return left <= x < right and top <= y < bottom

    def walk(self) -> Iterator[Node]:
        """Depth-first pre-order, iteratively (trees may be deep)."""
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children))

    def shown_text(self) -> str:
        """What a person sees in the node (a password as dots)."""
        text = self.text or ""
        return "\u2022" * len(text) if self.password else text


def node_dict(node: Node, parent_id: int | None, depth: int, children: list[int]) -> dict[str, Any]:
    """The NODE shape of docs/protocol.md, every key present."""
    return {
        "id": node.uid,
        "parent": parent_id,
        "depth": depth,
        "class": node.cls,
        "text": node.shown_text() if node.password and node.text else node.text,  # a password as its dots
        "desc": node.desc,
        "res": node.res,
        "hint": node.hint,
        "package": node.package,
        "bounds": list(node.bounds),
        "clickable": node.clickable,
        "long_clickable": node.long_clickable,
        "focusable": node.focusable,
        "focused": node.focused,
        "editable": node.editable,
        "checkable": node.checkable,
        "checked": node.checked,
        "enabled": node.enabled,
        "selected": node.selected,
        "scrollable": node.scrollable,
        "visible": node.visible,
        "password": node.password,
        "scroll": node.scroll.to_dict() if node.scroll is not None else None,
        "children": children,
    }


class TornDown(Exception):  # noqa: N818 - the platform's name for what happened
    """A subtree of the window was torn down while it was read: read it again from its root."""

    def __init__(self, window: int) -> None:
        super().__init__(f"a subtree of window {window} was torn down during the read")
        self.window = window


@dataclass(frozen=True)
class TreeRead:
    """One read of a window's tree: the node dicts in pre-order, each node's depth, and how many
    children the platform did not give (getChild null twice) and the read left out."""

    nodes: list[dict[str, Any]]
    depths: list[int]
    skipped: int = 0


class Window:
    """One window as the accessibility framework lists it (`WINDOW` in docs/protocol.md)."""

    def __init__(
        self,
        *,
        type: str,
        title: str,
        package: str,
        layer: int,
        bounds: Bounds,
        sends_change_events: bool,
        modal: bool = False,
        root: Node | None = None,
        layout_type: int = TYPE_BASE_APPLICATION,
        touchable: bool = True,
        trusted_overlay: bool = False,
        task: Bounds | None = None,
    ) -> None:
        self.id = next_window_id()
        self.type = type
        self.title = title
        self.package = package
        self.layer = layer
        self.bounds = bounds
        self.sends_change_events = sends_change_events
        #: touch-modal (a dialog, a dialog-themed activity): its touch region is its whole task, so
        #: it takes every touch and hides the app window under it from the accessibility window list
        #: (ui/accessibility.py). The platform reports no such flag: the agent infers modality.
        self.modal = modal
        #: WindowManager.LayoutParams' type, where it decides whether the window is reported (window_types.py)
        self.layout_type = layout_type
        #: FLAG_NOT_TOUCHABLE not set: the input dispatcher delivers touches to it
        self.touchable = touchable
        #: a trusted overlay (a system window with InputConfig.TRUSTED_OVERLAY)
        self.trusted_overlay = trusted_overlay
        #: the bounds of the window's task; None: a full-screen task (the display)
        self.task = task
        self.focused = False
        self.active = False
        self.root = root or Node("android.widget.FrameLayout", bounds, package=package)
        self.version = 0
        self._read: TreeRead | None = None

    def changed(self) -> None:
        """Drop the cached dicts: the next read builds them again."""
        self.version += 1
        self._read = None

    def read(self, between: Callable[[], None] | None = None) -> TreeRead:
        """The node dicts, from the cache while the window is unchanged.

        A fresh build calls `between()` every READ_SLICE nodes (the caller lets the app run there).
        A child the platform does not give (`Node.null_reads`; or one its parent no longer lists,
        found when the read resumes) is asked for once more, then left out and counted, as the Java
        agent's TreeReader and uiautomator's dumper skip a null child; only a node whose parent is
        gone too raises TornDown (the subtree was torn down under the read). A build the window
        changed under, or one that left children out, is returned but not cached."""
        read = self._read
        if read is not None:
            return read
        version = self.version
        read = _read_tree(self, between)
        if self.version == version and not read.skipped:
            self._read = read
        return read

    def node_count(self) -> int:
        return len(self.read().nodes)

    def nodes(self) -> Iterator[Node]:
        return self.root.walk()

    def find(self, uid: int) -> Node | None:
        return next((n for n in self.root.walk() if n.uid == uid), None)

    def by_res(self, res: str) -> Node | None:
        return next((n for n in self.root.walk() if n.res == res), None)

    def contains(self, x: int, y: int) -> bool:
        left, top, right, bottom = self.bounds
        return left <= x < right and top <= y < bottom

    def task_bounds(self, display: Bounds) -> Bounds:
        """The bounds of the window's task: the display for a full-screen task."""
        return self.task if self.task is not None else display

    def touch_region(self, display: Bounds) -> Bounds:
        """Where the window takes touches: a touch-modal window its whole task (WindowState
        .updateRegionForModalActivityWindow), any other its frame, a freeform task's window too."""
        return self.task_bounds(display) if self.modal else self.bounds

    @property
    def freeform(self) -> bool:
        """A freeform (desktop) task's own window: its task is its frame."""
        return self.task is not None and self.task == self.bounds

    def meta(self) -> dict[str, Any]:
        """What AccessibilityWindowInfo tells of the window (its package is its root node's), and
        whether its toolkit sends change events; the agent adds `owner` and `modal`."""
        return {
            "id": self.id,
            "type": self.type,
            "title": self.title,
            "package": self.package,
            "layer": self.layer,
            "focused": self.focused,
            "active": self.active,
            "bounds": list(self.bounds),
            "sends_change_events": self.sends_change_events,
        }


def _read_tree(window: Window, between: Callable[[], None] | None) -> TreeRead:
    root = window.root
    nodes: list[dict[str, Any]] = []
    depths: list[int] = []
    emitted: dict[int, dict[str, Any]] = {}
    skipped = 0
    stack: list[tuple[Node, int | None, int]] = [(root, None, 0)]
    seen = window.version
    while stack:
        if between is not None and nodes and len(nodes) % READ_SLICE == 0:
            between()
            if window.version != seen:
                seen = window.version
                vanished = [p for p in stack if not _attached(p[0], root)]
                if any(p[0].parent is None or not _attached(p[0].parent, root) for p in vanished):
                    raise TornDown(window.id)  # a parent is gone too: the subtree was torn down
                stack = [p for p in stack if p not in vanished]
                skipped += len(vanished)  # gone from a parent still there: getChild null, twice
                for node, parent_id, _ in vanished:
                    _forget_child(emitted, parent_id, node.uid)
                if not stack:
                    break
        node, parent_id, depth = stack.pop()
        if parent_id is not None and not (node.fetch() or node.fetch()):
            skipped += 1  # the platform gives null for it, asked twice: left out
            _forget_child(emitted, parent_id, node.uid)
            continue
        entry = node_dict(node, parent_id, depth, [c.uid for c in node.children])
        nodes.append(entry)
        emitted[node.uid] = entry
        depths.append(depth)
        for child in reversed(node.children):
            stack.append((child, node.uid, depth + 1))
    return TreeRead(nodes, depths, skipped)


def _forget_child(emitted: dict[int, dict[str, Any]], parent_id: int | None, uid: int) -> None:
    """The parent's NODE names only the children read."""
    parent = emitted.get(parent_id) if parent_id is not None else None
    if parent is not None:
        parent["children"] = [c for c in parent["children"] if c != uid]


def _attached(node: Node, root: Node) -> bool:
    """Whether `node` is still in `root`'s tree (each ancestor still lists it among its children)."""
    while node is not root:
        parent = node.parent
        if parent is None or not any(child is node for child in parent.children):
            return False
        node = parent
    return True
