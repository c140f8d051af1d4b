"""The image's browser, as far as a test sees it: `am start -a android.intent.action.VIEW -d URL`
of an http or https URL shows its window with the URL in its address bar
(`com.android.chrome:id/url_bar`, as Chrome names it), and a later URL replaces it."""

from __future__ import annotations

from pytest_mobile_agent.virtual.android.intents import BROWSER_ACTIVITY, BROWSER_PACKAGE
from pytest_mobile_agent.virtual.ui.model import UiModel
from pytest_mobile_agent.virtual.ui.node import Node, Window
from pytest_mobile_agent.virtual.ui.system import LAYER_APP


class BrowserApp:
    """The activity manager's view of the browser (`activity.App`), which takes the intent's data."""

    package = BROWSER_PACKAGE

    def __init__(self, model: UiModel) -> None:
        self.model = model
        self.window: Window | None = None
        self.url = ""

    def has_activity(self, activity: str) -> bool:
        return activity == BROWSER_ACTIVITY

    def open_data(self, url: str) -> None:
        self.url = url

    def start(self, activity: str, extras: dict[str, str]) -> None:
        model = self.model
        with model.lock:
            if self.window is not None:
                model.remove_window(self.window)
            geo = model.geo
            window = Window(type="application", title="Chrome", package=self.package, layer=LAYER_APP,
                            bounds=geo.app, sends_change_events=True)
            window.root.add(Node("android.widget.EditText", geo.title_bar, text=self.url, package=self.package,
                                 res=f"{self.package}:id/url_bar", editable=True, focusable=True, clickable=True))
            self.window = window
            model.add_window(window)

    def stop(self) -> None:
        window, self.window = self.window, None
        if window is not None:
            self.model.remove_window(window)
