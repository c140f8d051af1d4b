"""The Settings app (`com.android.settings/.Settings`): a classic View screen, so unlike the Compose
fixture its window sends change events (toggling a switch is a `window_changed` of kind `state`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from pytest_mobile_agent.virtual.ui.node import Node, Window
from pytest_mobile_agent.virtual.ui.system import LAYER_APP

if TYPE_CHECKING:
    from pytest_mobile_agent.virtual.ui.model import UiModel

SETTINGS_PACKAGE = "com.android.settings"
SETTINGS_ACTIVITY = ".Settings"
_ROWS = (("Wi\u2011Fi", True), ("Bluetooth", False), ("Airplane mode", False), ("Dark theme", False))


class SettingsApp:
    package = SETTINGS_PACKAGE

    def __init__(self, model: UiModel) -> None:
        self.model = model
        self.window: Window | None = None

    @property
    def running(self) -> bool:
        return self.window is not None

    def has_activity(self, activity: str) -> bool:
        return activity in (SETTINGS_PACKAGE + SETTINGS_ACTIVITY, SETTINGS_ACTIVITY)

    def start(self, extras: Mapping[str, str] | None = None) -> None:
        if self.window is not None:
            self.model.bring_to_front(self.window)
            return
        self.window = self._build()
        self.model.add_window(self.window)

    def stop(self) -> None:
        window, self.window = self.window, None
        if window is not None:
            self.model.remove_window(window)

    def back(self) -> bool:
        """BACK on the Settings screen finishes it."""
        self.stop()
        return True

    def owns(self, window: Window) -> bool:
        return window is self.window

    def relaunch_extras(self) -> Mapping[str, str]:
        return {}

    def _build(self) -> Window:
        geo = self.model.geo
        w = Window(type="application", title="Settings", package=SETTINGS_PACKAGE, layer=LAYER_APP,
                   bounds=geo.app, sends_change_events=True)
        rid = f"{SETTINGS_PACKAGE}:id/"
        w.root.res = rid + "settings_root"
        w.root.add(Node("android.widget.TextView", geo.title_bar, text="Settings", res=rid + "title"))
        listing = w.root.add(Node("android.widget.ScrollView", geo.content, res=rid + "recycler_view"))
        y = geo.content[1]
        for label, on in _ROWS:
            row = listing.add(Node("android.widget.LinearLayout", (0, y, geo.width, y + 168), clickable=True,
                                   focusable=True))
            row.add(Node("android.widget.TextView", (60, y, geo.width - 260, y + 168), text=label,
                         res="android:id/title"))
            switch = row.add(Node("android.widget.Switch", (geo.width - 220, y + 40, geo.width - 60, y + 128),
                                  res=rid + "switchWidget", checkable=True, checked=on, clickable=True,
                                  focusable=True))
            row.on_click = switch.on_click = (lambda s=switch: self._toggle(s))
            y += 168
        return w

    def _toggle(self, switch: Node) -> None:
        switch.checked = not switch.checked
        if self.window is not None:
            self.model.nodes_changed(self.window, [switch], ("state",))
