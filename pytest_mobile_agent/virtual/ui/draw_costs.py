"""What a screen adds to its window's frames: UI-thread work the model's own accounting (nodes laid
out and drawn, ui/frame_timeline.py) does not see, and the bitmaps a screen holds decoded.

A screen registers a cost (`costs.append(fn)`: `fn(window) -> extra ms`, None when it is not on
that window) and sets the bitmaps its package holds (`bitmaps[package] = KiB`); the frame timeline
asks for both at each frame. The Feed screen (ui/feed.py) uses them; the other screens cost only
their nodes.
"""

from __future__ import annotations

from collections.abc import Callable

from pytest_mobile_agent.virtual.ui.node import Window

DrawCost = Callable[[Window], float | None]


class DrawCosts:
    def __init__(self) -> None:
        self.costs: list[DrawCost] = []
        self.bitmaps: dict[str, int] = {}

    def extra_ms(self, window: Window) -> float:
        return sum(cost for fn in list(self.costs) if (cost := fn(window)) is not None)
