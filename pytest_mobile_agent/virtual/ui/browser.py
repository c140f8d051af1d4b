"""The image's browser, as far as a test sees it: `am start -a android.intent.action.VIEW -d URL`
of an http or https URL shows its window with the URL in its address bar
(`com.android.chrome:id/url_bar`, as Chrome names it), and a later URL replaces it.

Below the address bar the page itself is rendered by Chrome's process's chromium (virtual/web) in a
tab that Chrome's DevTools socket, `chrome_devtools_remote`, lists, and its content reaches the
replica under an `android.webkit.WebView` node (Chrome's web contents expose their accessibility
tree as a WebView does: ui/webview.py). A Custom Tab an app opens (a VIEW intent with the Custom
Tabs extras, `androidx.browser.customtabs`) is a page of Chrome's process too, found there the same
way. The double's Chrome keeps one tab: a later URL closes the previous page."""

from __future__ import annotations

from pytest_mobile_agent.virtual.android.intents import BROWSER_ACTIVITY, BROWSER_PACKAGE
from pytest_mobile_agent.virtual.ui.model import UiModel
from pytest_mobile_agent.virtual.ui.node import Node, Window
from pytest_mobile_agent.virtual.ui.system import LAYER_APP
from pytest_mobile_agent.virtual.ui.webview import WebView
from pytest_mobile_agent.virtual.web.browser import Kind


class BrowserApp:
    """The activity manager's view of the browser (`activity.App`), which takes the intent's data."""

    package = BROWSER_PACKAGE

    def __init__(self, model: UiModel) -> None:
        self.model = model
        self.window: Window | None = None
        self.url = ""
        #: the page the window shows, when the device has a web engine
        self.tab: WebView | None = None

    def has_activity(self, activity: str) -> bool:
        return activity == BROWSER_ACTIVITY

    def open_data(self, url: str) -> None:
        self.url = url

    def start(self, activity: str, extras: dict[str, str]) -> None:
        model = self.model
        with model.lock:
            if self.window is not None:
                model.remove_window(self.window)
            self._close_tab()
            geo = model.geo
            window = Window(type="application", title="Chrome", package=self.package, layer=LAYER_APP,
                            bounds=geo.app, sends_change_events=True)
            window.root.add(Node("android.widget.EditText", geo.title_bar, text=self.url, package=self.package,
                                 res=f"{self.package}:id/url_bar", editable=True, focusable=True, clickable=True))
            self.window = window
            model.add_window(window)
            if getattr(model, "web", None) is not None and self.url:
                content = (geo.title_bar[0], geo.title_bar[3], geo.width, geo.nav_bar[1])
                self.tab = WebView(model, window, content, self.package, res=f"{self.package}:id/content",
                                   kind=Kind.CHROME)
                window.root.add(self.tab.node)
                self.tab.load(self.url)

    def _close_tab(self) -> None:
        tab, self.tab = self.tab, None
        if tab is not None:
            tab.close()

    def stop(self) -> None:
        self._close_tab()
        window, self.window = self.window, None
        if window is not None:
            self.model.remove_window(window)
