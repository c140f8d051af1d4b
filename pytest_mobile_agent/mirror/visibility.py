"""What of a node a person sees, and where an action may touch it (issue 41, item 1).

`visible` means what Android's `AccessibilityNodeInfo.isVisibleToUser` means: the node is drawn and
lies on the screen, inside its window's visible region (View.isVisibleToUser clips the view's rect
through its parents and the window, View.getGlobalVisibleRect, frameworks/base
core/java/android/view/View.java). The agent sends the platform's flag; a toolkit that reports a
node outside its window or the display as visible (a Compose node laid out below a landscape
display) is corrected by the replica (`on_screen`), so a query, an element's `visible` and an
action all agree.

An action touches the node's visible part: its bounds clipped to the display, its window and each
scrollable ancestor (as uiautomator's UiObject2.getVisibleBounds clips to the display and the
scrollable ancestors), less what windows above it cover (a tap there lands on them), all of it
under a touch-modal window above (mirror/receives_touch.py). A node with no
visible part inside a scrollable container is scrolled into view first; otherwise the action's wait
says where the node is.
"""

from __future__ import annotations

from collections.abc import Iterable

from pytest_mobile_agent.mirror.geometry import (
    bounds_text,
    clip,
    display_bounds,
    has_area,
    largest_rest,
    on_screen,
    screen_region,
)
from pytest_mobile_agent.mirror.replica import Entry, View
from pytest_mobile_agent.session.backends import Bounds, Window

__all__ = ["scrollable_ancestor", "touchable_part", "visible_part", "where"]


def scrollable_ancestor(view: View, entry: Entry) -> Entry | None:
    """The nearest scrollable ancestor: the container that can bring the node into view."""
    return next((a for a in view.ancestors(entry) if a.node.scrollable), None)


def visible_part(view: View, entry: Entry) -> Bounds | None:
    """The node's bounds clipped to the display, its window and every scrollable ancestor; None
    when nothing of it is left."""
    part: Bounds | None = entry.node.bounds
    region = screen_region(entry.window, view.snapshot.display)
    if region is not None:
        part = clip(entry.node.bounds, region)
    for ancestor in view.ancestors(entry):
        if part is None:
            return None
        if ancestor.node.scrollable:
            part = clip(part, ancestor.node.bounds)
    return part


def touchable_part(view: View, entry: Entry) -> tuple[Bounds | None, Window | None]:
    """The largest rectangle of the node's visible part that no window above its own covers, and
    the window that covers it all when none is left (None: it has no visible part)."""
    part = visible_part(view, entry)
    if part is None:
        return None, None
    for window in _windows_above(view, entry.window):
        if window.metadata.modal:
            return None, window  # a touch-modal window takes every touch in its task (mirror/receives_touch.py)
        if not has_area(window.bounds) or clip(part, window.bounds) is None:
            continue
        rest = largest_rest(part, window.bounds)
        if rest is None:
            return None, window
        part = rest
    return part, None


def _windows_above(view: View, window: Window) -> Iterable[Window]:
    for other in view.windows:  # top-most first
        if other.id == window.id:
            return
        yield other


def where(view: View, entry: Entry) -> str:
    """Where a node with no visible part is, in words: past which edge of the display, its window or
    its scrolling container."""
    bounds = entry.node.bounds
    shown = bounds_text(bounds)
    display = display_bounds(view.snapshot.display)
    if display is not None and not on_screen(bounds, display):
        return f"it is outside the display: {shown} lies {_side(bounds, display)} (the display is " \
               f"{display[2]}x{display[3]})"
    region = screen_region(entry.window, view.snapshot.display)
    if region is not None and not on_screen(bounds, region):
        return f"it is outside its window {_window_name(entry.window)}: {shown} lies {_side(bounds, region)} " \
               f"({bounds_text(region)})"
    container = scrollable_ancestor(view, entry)
    if container is not None:
        return f"it is scrolled out of view: {shown} lies {_side(bounds, container.node.bounds)} of its " \
               f"scrolling container {bounds_text(container.node.bounds)}"
    return f"it has no visible part: {shown}"


def _side(bounds: Bounds, region: Bounds) -> str:
    if bounds[1] >= region[3]:
        return f"below the bottom edge (y {region[3]})"
    if bounds[3] <= region[1]:
        return f"above the top edge (y {region[1]})"
    if bounds[0] >= region[2]:
        return f"past the right edge (x {region[2]})"
    if bounds[2] <= region[0]:
        return f"past the left edge (x {region[0]})"
    return "outside it"


def _window_name(window: Window) -> str:
    return repr(window.title or window.package or window.type)
