"""What the inspector's page shows, from one view of the mirror: the windows, the node tree, the
element under a point on the screen, and an element's attributes with the line that finds it."""

from __future__ import annotations

from typing import Any

from pytest_mobile_agent.mirror.replica import Entry, View
from pytest_mobile_agent.mirror.selectors import describe_entry
from pytest_mobile_agent.mirror.unique import unique_locator

FLAGS = ("clickable", "long_clickable", "focusable", "focused", "editable", "checkable", "checked", "enabled",
         "selected", "scrollable", "visible", "password")


def page_state(view: View) -> dict[str, Any]:
    """The view as the page draws it: the display, the windows (top-most first) and every node."""
    display = view.snapshot.display
    return {
        "generation": view.generation,
        "display": {"width": display.width, "height": display.height, "rotation": display.rotation},
        "windows": [_window(w) for w in view.windows],
        "nodes": [_node(e) for e in view.entries],
    }


def element_at(view: View, x: float, y: float) -> Entry | None:
    """The node a touch at physical (x, y) lands on: in the top-most window that has a visible node
    there, the smallest such node (the deepest, for nodes of one size)."""
    for window in view.windows:
        here = [e for e in view.by_window.get(window.id, ()) if e.node.visible and _holds(e.node.bounds, x, y)]
        if here:
            return min(here, key=lambda e: (_area(e.node.bounds), -e.node.depth))
    return None


def element_details(view: View, entry: Entry) -> dict[str, Any]:
    """An element's attributes and the line of Python that finds it alone, tried on the view."""
    locator = unique_locator(view, entry)
    node = entry.node
    return {
        "ref": entry.ref,
        "summary": describe_entry(entry),
        "attributes": {
            "class": node.class_name, "text": node.text, "desc": node.desc, "resource_id": node.res,
            "hint": node.hint, "package": node.package, "bounds": list(node.bounds),
            "window": entry.window.title or entry.window.type, **{f: getattr(node, f) for f in FLAGS},
        },
        "python": locator.python(),
        "finds_it": locator.resolve(view) == entry,
    }


def _window(window: Any) -> dict[str, Any]:
    meta = window.metadata
    return {"id": window.id, "type": window.type, "title": window.title, "package": window.package,
            "layer": window.layer, "focused": window.focused, "active": window.active, "bounds": list(window.bounds),
            "modal": meta.modal, "owner": meta.owner, "sends_change_events": meta.sends_change_events,
            "node_count": window.node_count}


def _node(entry: Entry) -> dict[str, Any]:
    node = entry.node
    return {"ref": entry.ref, "window": entry.window.id, "parent": entry.parent, "depth": node.depth,
            "label": describe_entry(entry), "bounds": list(node.bounds), "visible": node.visible}


def _holds(bounds: tuple[int, int, int, int], x: float, y: float) -> bool:
    left, top, right, bottom = bounds
    return left <= x < right and top <= y < bottom


def _area(bounds: tuple[int, int, int, int]) -> int:
    left, top, right, bottom = bounds
    return max(0, right - left) * max(0, bottom - top)
