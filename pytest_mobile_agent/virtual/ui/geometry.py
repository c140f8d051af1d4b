"""Where things sit on the display, in physical pixels (1080x2400 at 420 dpi by default)."""

from __future__ import annotations

from dataclasses import dataclass

from pytest_mobile_agent.virtual.ui.node import Bounds


@dataclass(frozen=True)
class Geometry:
    width: int = 1080
    height: int = 2400
    density: int = 420

    def dp(self, value: float) -> int:
        """Density-independent points to pixels (420 dpi: 2.625 px per dp)."""
        return round(value * self.density / 160)

    @property
    def status_bar(self) -> Bounds:
        return (0, 0, self.width, 84)

    @property
    def nav_bar(self) -> Bounds:
        return (0, self.height - 126, self.width, self.height)

    @property
    def title_bar(self) -> Bounds:
        return (0, 84, self.width, 210)

    @property
    def tab_row(self) -> Bounds:
        return (0, 210, self.width, 336)

    @property
    def content(self) -> Bounds:
        """The area under the tab row and above the navigation bar."""
        return (0, 336, self.width, self.height - 126)

    @property
    def app(self) -> Bounds:
        """The app's window: the whole display (edge to edge, under the bars)."""
        return (0, 0, self.width, self.height)

    @property
    def keyboard(self) -> Bounds:
        return (0, self.height - 126 - 744, self.width, self.height - 126)

    @property
    def touch_slop(self) -> int:
        """Android's touch slop: 8 dp."""
        return self.dp(8)
