"""The fixture app's web sign-in: the Login tab's "Sign in on the web" button opens an activity
(`.WebSignInActivity`) whose window holds two WebViews, as an app's hybrid screen does:

* `web_sign_in` shows the app's sign-in page, served from the app's own assets at
  https://appassets.androidplatform.net/assets/signin.html (androidx.webkit's WebViewAssetLoader
  path) with a name field and a "Sign in" button; the page's submit calls `Android.signIn(name)`,
  the object the app adds with `addJavascriptInterface(bridge, "Android")`;
* `web_terms`, a smaller WebView below it, shows the app's terms page (assets/terms.html).

The app's answer to `signIn` comes on the JavaBridge thread and is posted to the UI thread (a
Handler, as an app must: WebView's interface methods never run on the UI thread): the activity
finishes, both WebViews are destroyed (their pages go from the process's DevTools socket), and
the native Login screen signs the user in with the Welcome alert, as its own Login button does.
BACK finishes the activity the same way, without signing in.

The app's WebViews are debuggable, as a debug build's are, unless it was started with `--es
web_debugging off` (it then calls `WebView.setWebContentsDebuggingEnabled(false)`: the pages render,
and the process serves no DevTools socket); `--es web_debugging on` turns it on again.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pytest_mobile_agent.virtual.ui.node import Node, Window
from pytest_mobile_agent.virtual.ui.system import LAYER_APP
from pytest_mobile_agent.virtual.ui.webview import JavascriptInterface, WebView
from pytest_mobile_agent.virtual.web.page import ASSET_ORIGIN, Asset

if TYPE_CHECKING:
    from pytest_mobile_agent.virtual.ui.model import UiModel

ACTIVITY = ".WebSignInActivity"
TITLE = "Sign in on the web"
SIGN_IN_URL = f"{ASSET_ORIGIN}/assets/signin.html"
TERMS_URL = f"{ASSET_ORIGIN}/assets/terms.html"
PAGE_TITLE = "Web sign-in"
TERMS_TITLE = "Terms"
BRIDGE = "Android"
#: the share of the content area the terms WebView takes, at the bottom
TERMS_SHARE = 0.25

SIGN_IN_HTML = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Web sign-in</title>
<style>body{font-family:sans-serif;margin:16px}label,input,button{display:block;width:100%;font-size:18px}
input,button{margin:8px 0 16px;padding:10px;box-sizing:border-box}</style></head>
<body><h1>Sign in</h1>
<form id="form"><label for="name">Your name</label><input id="name" name="name" autocomplete="off">
<button id="submit" type="submit">Continue</button></form>
<script>
document.getElementById("form").addEventListener("submit", function (event) {
  event.preventDefault();
  Android.signIn(document.getElementById("name").value);
});
</script></body></html>
"""

TERMS_HTML = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Terms</title></head>
<body><p>By signing in you accept the terms of the Compose fixture.</p></body></html>
"""

ASSETS = {
    "/assets/signin.html": Asset("text/html; charset=utf-8", SIGN_IN_HTML.encode()),
    "/assets/terms.html": Asset("text/html; charset=utf-8", TERMS_HTML.encode()),
}


class WebSignIn:
    """The activity's window and its two WebViews."""

    def __init__(self, model: UiModel, package: str, on_signed_in: Callable[[str], None],
                 on_finished: Callable[[WebSignIn], None], *, debuggable: bool = True) -> None:
        self.model = model
        self.package = package
        self.on_signed_in = on_signed_in
        self.on_finished = on_finished
        geo = model.geo
        self.window = Window(type="application", title=TITLE, package=package, layer=LAYER_APP, bounds=geo.app,
                             sends_change_events=True)
        self.window.root.add(Node("android.widget.TextView", geo.title_bar, text=TITLE, package=package,
                                  res="web_title"))
        left, top, right, bottom = geo.title_bar[0], geo.title_bar[3], geo.width, geo.nav_bar[1]
        split = bottom - round((bottom - top) * TERMS_SHARE)
        self.sign_in = WebView(model, self.window, (left, top, right, split), package, res="web_sign_in",
                               debuggable=debuggable)
        self.terms = WebView(model, self.window, (left, split, right, bottom), package, res="web_terms",
                             debuggable=debuggable)
        for webview in (self.sign_in, self.terms):
            self.window.root.add(webview.node)
        self.finished = False

    @property
    def webviews(self) -> tuple[WebView, WebView]:
        return self.sign_in, self.terms

    def show(self) -> None:
        self.model.add_window(self.window)
        bridge = JavascriptInterface(BRIDGE, ("signIn",), self._bridge_call)
        self.sign_in.load(SIGN_IN_URL, assets=ASSETS, asset_origin=ASSET_ORIGIN, interfaces=(bridge,))
        self.terms.load(TERMS_URL, assets=ASSETS, asset_origin=ASSET_ORIGIN)

    def _bridge_call(self, method: str, args: list[Any]) -> None:
        """On the JavaBridge thread: post the answer to the UI thread."""
        if method == "signIn" and args:
            name = str(args[0])
            self.model.schedule(0.0, lambda: self._signed_in(name))

    def _signed_in(self, name: str) -> None:
        if self.finished:
            return
        self.finish()
        self.on_signed_in(name)

    def finish(self) -> None:
        """The activity finishes: its window goes, its WebViews are destroyed."""
        if self.finished:
            return
        self.finished = True
        for webview in self.webviews:
            webview.close()
        self.model.clear_focus_in(self.window)
        self.model.remove_window(self.window)
        self.on_finished(self)
