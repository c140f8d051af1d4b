"""Whether an element would receive the touch an action aims at it (issue 36, item 3).

Android's input dispatcher gives a touch to the top-most window that accepts it at that point
(InputDispatcher::findTouchedWindowAtLocked and windowAcceptsTouchAt, frameworks/native
services/inputflinger/dispatcher/InputDispatcher.cpp, Android 12 to 16): a window accepts a touch
inside its touchable region, which for a touch-modal window (a dialog without
FLAG_NOT_TOUCH_MODAL) is its whole task, the display for a full-screen task
(WindowState.getSurfaceTouchableRegion, frameworks/base services/core/java/com/android/server/wm/
WindowState.java). So an action's point must lie in the element's visible part with no window above
the element's own over it (mirror/visibility.touchable_part): where one is, the touch lands there.

What covers an element wholly is named, window and node, so that a timed-out action says what to
dismiss; the keyboard is told apart, since an action can get it out of the way itself
(mirror/actionable.py: scroll the element above it, else hide it).
"""

from __future__ import annotations

from dataclasses import dataclass

from pytest_mobile_agent.mirror.blockers import describe_window
from pytest_mobile_agent.mirror.replica import Entry, View
from pytest_mobile_agent.mirror.selectors import describe_entry
from pytest_mobile_agent.mirror.visibility import touchable_part, visible_part
from pytest_mobile_agent.session.backends import Bounds, Window

INPUT_METHOD = "input_method"
"""The keyboard's window type (AccessibilityWindowInfo.TYPE_INPUT_METHOD, docs/protocol.md)."""


@dataclass(frozen=True)
class Cover:
    """A window above an element that takes every touch aimed at it, and its node at the aim."""

    window: Window
    node: Entry | None
    aim: tuple[float, float]

    @property
    def is_keyboard(self) -> bool:
        return self.window.type == INPUT_METHOD

    def describe(self) -> str:
        what = f"the window {describe_window(self.window)}"
        if self.node is None:
            return what
        return f"{what}, whose node {describe_entry(self.node)} is at ({self.aim[0]:g}, {self.aim[1]:g})"


def covered_by(view: View, entry: Entry) -> Cover | None:
    """What takes the touches aimed at the element when nothing of its visible part is left to
    touch; None when a part is (or when it has no visible part at all: mirror/visibility.where)."""
    part, window = touchable_part(view, entry)
    visible = visible_part(view, entry)
    if part is not None or window is None or visible is None:
        return None
    aim = ((visible[0] + visible[2]) / 2, (visible[1] + visible[3]) / 2)
    return Cover(window, node_at(view, window, aim), aim)


def node_at(view: View, window: Window, point: tuple[float, float]) -> Entry | None:
    """The deepest node of `window` under the point (the last in pre-order whose bounds hold it)."""
    x, y = point
    found = None
    for entry in view.entries:
        if entry.window.id == window.id and _holds(entry.node.bounds, x, y):
            found = entry
    return found


def area_above(box: Bounds, cover: Bounds) -> Bounds | None:
    """The part of a container's visible box above a window that covers its lower part (the
    keyboard), None when the cover leaves nothing above it."""
    bottom = min(box[3], cover[1])
    return (box[0], box[1], box[2], bottom) if bottom > box[1] else None


def _holds(bounds: Bounds, x: float, y: float) -> bool:
    return bounds[0] <= x < bounds[2] and bounds[1] <= y < bounds[3]
