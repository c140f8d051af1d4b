"""The fixture app's Gestures screen: content that needs several fingers, as real apps have.

`am start -n dev.mobileagent.fixture/.MainActivity --es tab Gestures` opens it; it is not in the tab
row, so the frame's nodes and the Big tab's 573 stay as they are. It holds:

- a zoomable picture (`picture`), a photo viewer's: a pinch scales it (ScaleGestureDetector's
  factors, multiplied), two fingers turning rotate it (Compose's transform rotation), a double tap
  zooms it to 2x, or back to 1x when it is zoomed (GestureDetector's onDoubleTap); its content
  description says its scale and rotation (`Picture, scale 1.00, rotation 0`), as an accessible
  zoomable image announces its zoom;
- `gesture_status`, what the picture recognised so far: `taps 0, double taps 0, long presses 0,
  two-finger taps 0`;
- a reorderable list (`reorder_list`, rows `Item 1` to `Item 6`), as RecyclerView's ItemTouchHelper
  with its long-press drag (androidx recyclerview ItemTouchHelper: the drag starts on
  GestureDetector's onLongPress): press a row, hold past the long-press timeout, move, and the row
  lands where the finger lifts; a drag without the hold scrolls nothing and moves nothing.

The rules of the detectors are in ui/recognizers.py.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING

from PIL import ImageDraw

from pytest_mobile_agent.virtual.ui.node import Node, Window
from pytest_mobile_agent.virtual.ui.pointers import MotionEvent
from pytest_mobile_agent.virtual.ui.recognizers import (
    RotationDetector,
    ScaleDetector,
    TapDetector,
    TapListener,
    Thresholds,
)

if TYPE_CHECKING:
    from PIL import Image

    from pytest_mobile_agent.virtual.ui.model import UiModel

SCREEN = "Gestures"
ROWS = 6
DOUBLE_TAP_ZOOM = 2.0
SKY, SUN, HILL = (150, 200, 240), (250, 200, 60), (70, 140, 80)

Changed = Callable[[list[Node], tuple[str, ...]], None]


class Picture:
    """The zoomable picture's state and its detectors; drawn over its window's pixels at its scale
    and rotation (ui/render.py's Animation: `window`, `draw`)."""

    def __init__(self, window: Window, node: Node, status: Node, thresholds: Thresholds, changed: Changed) -> None:
        self.window = window
        self.node, self.status, self.changed = node, status, changed
        self.scale, self.rotation = 1.0, 0.0
        self.counts = {"taps": 0, "double taps": 0, "long presses": 0, "two-finger taps": 0}
        self.detectors = (
            ScaleDetector(thresholds, self._scaled),
            RotationDetector(thresholds, self._rotated),
            TapDetector(thresholds, TapListener(
                on_tap=lambda x, y: self._count("taps"),
                on_double_tap=lambda x, y: self._double_tap(),
                on_long_press=lambda x, y: self._count("long presses"),
                on_two_finger_tap=lambda: self._count("two-finger taps"))),
        )
        self._describe()

    def on_motion(self, event: MotionEvent) -> None:
        for detector in self.detectors:
            detector.on_event(event)

    def _scaled(self, factor: float) -> None:
        self.scale *= factor
        self._describe()

    def _rotated(self, degrees: float) -> None:
        self.rotation += degrees
        self._describe()

    def _double_tap(self) -> None:
        self.scale = 1.0 if abs(self.scale - 1.0) > 0.01 else DOUBLE_TAP_ZOOM
        self._count("double taps")
        self._describe()

    def _count(self, what: str) -> None:
        self.counts[what] += 1
        self.status.text = ", ".join(f"{name} {n}" for name, n in self.counts.items())
        self.changed([self.status], ("text",))

    def shown(self) -> bool:
        """Whether the picture is still on the screen (a tab switch tears it down)."""
        node: Node | None = self.node
        while node is not None and node.parent is not None:
            if node not in node.parent.children:
                return False
            node = node.parent
        return node is self.window.root

    def draw(self, image: Image.Image) -> None:
        """A landscape (a hill under a sun) scaled and turned about the picture's centre, clipped to it."""
        if not self.shown():
            return
        left, top, right, bottom = self.node.bounds
        cx, cy = (left + right) / 2, (top + bottom) / 2
        size = min(right - left, bottom - top) / 2 * self.scale
        turn = math.radians(self.rotation)

        def at(u: float, v: float) -> tuple[float, float]:
            x, y = u * size, v * size
            return (min(max(cx + x * math.cos(turn) - y * math.sin(turn), left), right - 1),
                    min(max(cy + x * math.sin(turn) + y * math.cos(turn), top), bottom - 1))

        draw = ImageDraw.Draw(image)
        draw.polygon([at(-1, -1), at(1, -1), at(1, 1), at(-1, 1)], fill=SKY)
        draw.polygon([at(-1, 1), at(-0.2, -0.3), at(0.6, 1)], fill=HILL)
        draw.polygon([at(0.3 + 0.2 * math.cos(a / 6 * math.pi), -0.5 + 0.2 * math.sin(a / 6 * math.pi))
                      for a in range(12)], fill=SUN)

    def _describe(self) -> None:
        desc = f"Picture, scale {self.scale:.2f}, rotation {self.rotation:.0f}"
        if desc != self.node.desc:
            self.node.desc = desc
            self.changed([self.node], ("content",))  # the window is drawn again with it


class ReorderableList:
    """Rows reordered by a long-press drag (module doc)."""

    def __init__(self, container: Node, thresholds: Thresholds, changed: Changed, package: str) -> None:
        self.container, self.changed = container, changed
        left, top, right, bottom = container.bounds
        self.row_height = (bottom - top) // ROWS
        self.items = [f"Item {i + 1}" for i in range(ROWS)]
        self.rows = [container.add(Node("android.widget.TextView", self._row_bounds(i), text=item,
                                        res="reorder_row", package=package))
                     for i, item in enumerate(self.items)]
        self.dragged: int | None = None
        self.detector = TapDetector(thresholds, TapListener(on_long_press=self._lift, on_drop=self._drop))

    def _row_bounds(self, index: int) -> tuple[int, int, int, int]:
        left, top, right, _ = self.container.bounds
        return (left, top + index * self.row_height, right, top + (index + 1) * self.row_height)

    def index_at(self, y: int) -> int:
        return min(ROWS - 1, max(0, (y - self.container.bounds[1]) // self.row_height))

    def on_motion(self, event: MotionEvent) -> None:
        self.detector.on_event(event)

    def _lift(self, x: int, y: int) -> None:
        self.dragged = self.index_at(y)

    def _drop(self, x: int, y: int) -> None:
        if self.dragged is None:
            return
        item = self.items.pop(self.dragged)
        self.items.insert(self.index_at(y), item)
        self.dragged = None
        for row, text in zip(self.rows, self.items, strict=True):
            row.text = text
        self.changed(list(self.rows), ("text",))


def gestures_screen(model: UiModel, window: Window, screen: Node, changed: Changed,
                    package: str) -> tuple[Picture, ReorderableList]:
    """Compose the screen's nodes into `screen` (the content area of `window`)."""
    geo = model.geo
    thresholds = Thresholds.at(geo.density)
    left, top, right, bottom = screen.bounds
    margin = geo.dp(20)
    screen.add(Node("android.widget.TextView", (left + margin, top, right - margin, top + 84), text="Gestures",
                    res="gestures_heading", package=package))
    picture_node = screen.add(Node("android.widget.ImageView", (left + margin, top + 104, right - margin, top + 1004),
                                   res="picture", package=package, focusable=True))
    status = screen.add(Node("android.widget.TextView", (left + margin, top + 1024, right - margin, top + 1104),
                             text="taps 0, double taps 0, long presses 0, two-finger taps 0", res="gesture_status",
                             package=package))
    container = screen.add(Node("android.view.View", (left + margin, top + 1124, right - margin, bottom - margin),
                                res="reorder_list", package=package))
    picture = Picture(window, picture_node, status, thresholds, changed)
    picture_node.on_motion = picture.on_motion
    # the pictures of screens torn down are drawn no more
    model.animations[:] = [a for a in model.animations if not isinstance(a, Picture) or a.shown()]
    model.animations.append(picture)
    rows = ReorderableList(container, thresholds, changed, package)
    container.on_motion = rows.on_motion
    return picture, rows
