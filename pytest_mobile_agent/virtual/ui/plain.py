"""An installed app the UI model knows nothing of: its activities show a plain window, the app's
label as its title and one text, so that `am start` brings something of that package to the front
(`dumpsys window`, the agent's snapshot and `screen` all see the same window)."""

from __future__ import annotations

from pytest_mobile_agent.apk import Manifest
from pytest_mobile_agent.virtual.ui.model import UiModel
from pytest_mobile_agent.virtual.ui.node import Node, Window
from pytest_mobile_agent.virtual.ui.system import LAYER_APP


class PlainApp:
    """The activity manager's view of an installed APK without a UI model (`activity.App`)."""

    def __init__(self, model: UiModel, manifest: Manifest) -> None:
        self.model = model
        self.manifest = manifest
        self.package = manifest.package
        self.window: Window | None = None

    def has_activity(self, activity: str) -> bool:
        names = {a.name for a in self.manifest.activities}
        return self.manifest.activity(activity) in names

    def start(self, activity: str, extras: dict[str, str]) -> None:
        model = self.model
        if self.window is not None:
            model.bring_to_front(self.window)
            return
        label = self.manifest.label or self.package
        geo = model.geo
        window = Window(type="application", title=label, package=self.package, layer=LAYER_APP, bounds=geo.app,
                        sends_change_events=True)
        window.root.add(Node("android.widget.TextView", geo.title_bar, text=label, package=self.package,
                             res=f"{self.package}:id/title"))
        self.window = window
        model.add_window(window)

    def stop(self) -> None:
        window, self.window = self.window, None
        if window is not None:
            self.model.remove_window(window)
