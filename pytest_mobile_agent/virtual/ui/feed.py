"""The fixture app's Feed screen: a photo feed that drops frames when scrolled, as real apps do
when they decode and filter images on the UI thread.

`am start -n dev.mobileagent.fixture/.MainActivity --es tab Feed` opens it (it is not in the tab
row: the frame's nodes and the Big tab's 573 stay as they are). 60 photo cards in a scrollable
column, only the visible ones in the tree; every frame of the screen redraws each visible photo
with a software blur on the UI thread (PHOTO_DRAW_MS each), and a card coming into view first
decodes its photo there (DECODE_MS) and keeps the bitmap (PHOTO_KB): a scroll's frames take
well over the 16.67 ms a 60 Hz frame has (ui/frame_timeline.py counts them; `dumpsys gfxinfo`
reports them janky), and the app's native heap grows with the photos it has seen.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pytest_mobile_agent.virtual.ui.node import Node, ScrollInfo, Window

if TYPE_CHECKING:
    from collections.abc import Callable

    from pytest_mobile_agent.virtual.ui.model import UiModel

SCREEN = "Feed"
PHOTOS = 60  # the real app's FEED_PHOTOS (fixture-app/.../Fixture.kt), as are the two below
PHOTO_DRAW_MS = 4.5
DECODE_MS = 12.0
PHOTO_KB = 1_200  # a 600 x 500 ARGB_8888 bitmap


class FeedScroller:
    """The Feed's column: cards laid out for the scroll offset; its draw cost on the frame timeline."""

    def __init__(self, model: UiModel, window: Window, container: Node, package: str,
                 changed: Callable[[list[Node], tuple[str, ...]], None]) -> None:
        self.model = model
        self.window = window
        self.container = container
        self.package = package
        self.changed = changed
        self.card_height = model.geo.dp(200)
        self._offset = 0.0
        self._cards: dict[int, Node] = {}
        self._decoded: set[int] = set()
        self._new_this_frame = 0
        model.draw_costs.costs.append(self.frame_cost)
        self.layout()

    def shown(self) -> bool:
        """The Feed is on the screen: its window is, and the column is still in its tree."""
        return self.window in self.model.stacked_windows() and self.container in self.window.root.walk()

    def frame_cost(self, window: Window) -> float | None:
        """The UI thread's extra work in a frame of this window: each visible photo blurred, each
        newly visible one decoded first. None for another window's frame; once the screen is gone
        (another tab, the app stopped) the cost unregisters and the photos' memory is freed."""
        if not self.shown():
            self.model.draw_costs.costs.remove(self.frame_cost)
            self.model.draw_costs.bitmaps.pop(self.package, None)
            return None
        if window is not self.window:
            return None
        decoded, self._new_this_frame = self._new_this_frame, 0
        return len(self._cards) * PHOTO_DRAW_MS + decoded * DECODE_MS

    def offset(self) -> float:
        return self._offset

    def max_offset(self) -> float:
        top, bottom = self.container.bounds[1], self.container.bounds[3]
        return max(0.0, PHOTOS * self.card_height - (bottom - top))

    def scroll_to(self, offset: float) -> None:
        """A fling that outlives the screen (its window closed, another tab) moves nothing."""
        offset = min(self.max_offset(), max(0.0, offset))
        if offset == self._offset or not self.shown():
            return
        self._offset = offset
        self.layout()
        self.changed([self.container], ("scroll",))

    def layout(self) -> None:
        left, top, right, bottom = self.container.bounds
        h = self.card_height
        first = int(self._offset // h)
        last = min(PHOTOS - 1, int((self._offset + (bottom - top) - 1) // h))
        shown: dict[int, Node] = {}
        for index in range(first, last + 1):
            y = top + index * h - round(self._offset)
            node = self._cards.get(index) or Node("android.widget.ImageView", (left, y, right, y + h),
                                                  desc=f"Photo {index + 1}", res=f"photo_{index + 1}",
                                                  package=self.package)
            node.bounds = (left, max(top, y), right, min(bottom, y + h))
            shown[index] = node
            if index not in self._decoded:
                self._decoded.add(index)
                self._new_this_frame += 1
        self._cards = shown
        self.container.children = [shown[i] for i in sorted(shown)]
        self.container.scroll = ScrollInfo(vertical=True, can_back=self._offset > 0,
                                           can_forward=self._offset < self.max_offset(),
                                           items=PHOTOS, first=first, last=last)
        self.model.draw_costs.bitmaps[self.package] = len(self._decoded) * PHOTO_KB


def feed_screen(model: UiModel, window: Window, screen: Node, package: str,
                changed: Callable[[list[Node], tuple[str, ...]], None]) -> FeedScroller:
    """Build the Feed in `screen`: its scrollable column of photo cards."""
    container = screen.add(Node("android.view.View", screen.bounds, res="feed", scrollable=True, package=package))
    feed = FeedScroller(model, window, container, package, changed)
    container.scroller = feed
    return feed
