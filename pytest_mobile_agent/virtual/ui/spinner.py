"""The fixture app's Loading screen: an indeterminate spinner, a screen that never stops moving.

Compose's indeterminate `CircularProgressIndicator` draws a turning arc on every frame and exposes
one node (`ProgressBarRangeInfo.Indeterminate`, reported as `android.widget.ProgressBar`) whose
semantics do not change as it turns: the tree stays still while every frame differs, and Compose
sends no accessibility event for it (nor does a View `ProgressBar` in indeterminate mode:
`ProgressBar.onProgressRefresh` announces determinate progress only, AOSP
frameworks/base core/java/android/widget/ProgressBar.java). That is what a host meets on a real
device under spinners, shimmer and video, and what the mirror must not answer with a read per frame.

`am start -n dev.mobileagent.fixture/.MainActivity --es tab Loading` opens it; `--es spin_ms N`
stops the spinner after N model milliseconds and shows `Loaded` in its place (the screen then goes
still). The screen is not in the tab row: the frame's nodes, and the Big tab's 573, stay as they are.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PIL import ImageDraw

from pytest_mobile_agent.virtual.ui.node import Node, Window

if TYPE_CHECKING:
    from PIL import Image

    from pytest_mobile_agent.virtual.ui.model import UiModel

SCREEN = "Loading"
#: model milliseconds between two drawn frames: 25 a second, fewer than a device's 60 to keep the
#: double's rendering cheap; what matters to a host is that frames keep changing faster than it
#: waits for quiet
FRAME_MS = 40.0
TURN_MS = 1200.0  # one full turn of the arc
ARC = (120, 60, 200)
TRACK = (226, 232, 246)


class Spinner:
    """A turning arc drawn over its window's cached pixels, redrawn every FRAME_MS while `alive()`."""

    def __init__(self, model: UiModel, window: Window, node: Node, alive: Callable[[], bool]) -> None:
        self.model = model
        self.window = window
        self.node = node
        self.alive = alive
        self.frames = 0

    def start(self) -> None:
        self.model.animations.append(self)
        self.model.schedule(FRAME_MS, self._tick)

    def stop(self) -> None:
        if self in self.model.animations:
            self.model.animations.remove(self)

    def _tick(self) -> None:
        if not self.alive():
            self.stop()
            self.model.redrawn(self.window)
            return
        self.frames += 1
        self.model.redrawn(self.window)
        self.model.schedule(FRAME_MS, self._tick)

    def angle(self) -> float:
        return (self.model.clock.now_ms() % TURN_MS) / TURN_MS * 360.0

    def draw(self, image: Image.Image) -> None:
        """The arc at the angle of the model clock's now, over the node's bounds."""
        if not self.alive():
            return
        left, top, right, bottom = self.node.bounds
        draw = ImageDraw.Draw(image)
        draw.ellipse((left, top, right - 1, bottom - 1), outline=TRACK, width=18)
        start = self.angle()
        draw.arc((left, top, right - 1, bottom - 1), start, start + 100.0, fill=ARC, width=18)


def loading_screen(model: UiModel, window: Window, screen: Node, spin_ms: float | None,
                   alive: Callable[[], bool], on_loaded: Callable[[list[Node]], None]) -> Spinner:
    """Build the Loading screen in `screen`: the spinner node and its label; the spinner starts.

    With `spin_ms`, after that long the spinner node goes and a `Loaded` text takes its place
    (`on_loaded(nodes)` reports the change, as the app's content change)."""
    geo = model.geo
    left, top, right, _ = screen.bounds
    size = geo.dp(48)
    cx = (left + right) // 2
    y = top + geo.dp(120)
    node = screen.add(Node("android.widget.ProgressBar", (cx - size, y, cx + size, y + 2 * size), desc="Loading",
                           res="spinner"))
    label = screen.add(Node("android.widget.TextView", (left + geo.dp(24), y + 2 * size + geo.dp(24),
                                                        right - geo.dp(24), y + 2 * size + geo.dp(56)),
                            text="Loading…", res="loading_text"))
    spinner = Spinner(model, window, node, lambda: alive() and node in screen.children)
    spinner.start()
    if spin_ms is not None:

        def loaded() -> None:
            if not alive() or node not in screen.children:
                return
            screen.children.remove(node)
            label.text = "Loaded"
            label.res = "loaded_text"
            on_loaded([screen, label])

        model.schedule(max(0.0, spin_ms), loaded)
    return spinner
