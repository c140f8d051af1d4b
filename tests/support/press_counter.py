"""A window whose one node counts its clicks and long clicks: what a touch did, tap or long press."""

from __future__ import annotations

from pytest_mobile_agent.virtual.ui import UiModel
from pytest_mobile_agent.virtual.ui.node import Node, Window
from pytest_mobile_agent.virtual.ui.system import LAYER_APP

#: a point on the button (it fills the display)
X, Y = 540, 1200


class Button:
    """A window with one node that counts its clicks and long clicks."""

    def __init__(self, ui: UiModel) -> None:
        self.clicks = 0
        self.long_clicks = 0
        self.window = Window(type="application", title="Buttons", package="dev.test", layer=LAYER_APP,
                             bounds=(0, 0, ui.geo.width, ui.geo.height), sends_change_events=True)
        node = self.window.root.add(Node("android.widget.Button", (0, 0, ui.geo.width, ui.geo.height),
                                         text="Press", clickable=True, long_clickable=True))
        node.on_click = self._click
        node.on_long_click = self._long_click
        ui.add_window(self.window)

    def _click(self) -> None:
        self.clicks += 1

    def _long_click(self) -> None:
        self.long_clicks += 1
