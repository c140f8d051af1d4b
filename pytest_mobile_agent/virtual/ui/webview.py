"""An `android.webkit.WebView` in an app's window: its page is rendered by the app process's
chromium (virtual/web), and its content reaches the replica as a WebView exposes it to
accessibility (ui/web_accessibility.py).

As on a device, loading is asynchronous: the WebView's node is in the window at once, empty, and
the page's nodes appear once it has loaded (the loading runs on a thread of its own, the first one
of a process starting that process's chromium). After that the nodes follow the page: a load, a DOM
change or a call from the page wakes the refresh at once, and a page that changes only a value
(typing into a field sends no DOM event) is read again every POLL_S while the WebView is shown; a
change is announced as the WebView announces it (TYPE_WINDOW_CONTENT_CHANGED: the window sends
change events). A tap on a web node is dispatched to the page at the node's centre as a
touch (`Input.dispatchTouchEvent`), as the WebView forwards a touch to its renderer, and ACTION_SET_TEXT
on a web field sets the page's value; both in the order they came, off the UI thread.

The screen shows the page's own pixels: after each change the WebView takes chromium's
screenshot of the page (`Page.captureScreenshot`) and draws it over its node on every frame
(`PagePixels`, one of the model's animations), so screenshots, frames and videos show the page
as the device would.

`describe()` is what WebView reports of itself in its DevTools target's description (attached,
visible, its place on the screen; virtual/web/devtools_socket.py). `close()` destroys the WebView:
its page goes from the process's DevTools list and a client attached to it sees it detach.

Without chromium the WebView shows the reason as its text, and the engine's `ChromiumMissing`
names the package to install.
"""

from __future__ import annotations

import io
import logging
import threading
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from PIL import Image

from pytest_mobile_agent import errors
from pytest_mobile_agent.virtual.ui.node import Bounds, Node, Window
from pytest_mobile_agent.virtual.ui.web_accessibility import Ids, replica_nodes
from pytest_mobile_agent.virtual.web.browser import Kind, ProcessBrowser
from pytest_mobile_agent.virtual.web.chromium import INSTALL_ADVICE, ChromiumMissing
from pytest_mobile_agent.virtual.web.chromium import Window as PageWindow
from pytest_mobile_agent.virtual.web.page import Asset, AxNode, Page

if TYPE_CHECKING:
    from pytest_mobile_agent.virtual.ui.model import UiModel
    from pytest_mobile_agent.virtual.web.engine import WebEngine

log = logging.getLogger("pytest_mobile_agent.virtual")

POLL_S = 0.25
WEBVIEW_CLASS = "android.webkit.WebView"


FIT_SLACK_PX = 2


def fitted(shot: Image.Image, size: tuple[int, int]) -> Image.Image:
    """The page's pixels in the node's box. A WebView on a device draws its page at the view's own
    pixel size, never scaled to fit: its viewport is the view's size in CSS pixels at the display's
    density (window.devicePixelRatio), so a CSS pixel is `density` device pixels. Chromium's
    screenshot is the CSS size times that ratio, rounded, and can be a pixel or two off the box:
    then the pixels are cut, or the last row and column carried on, not resampled (resampling a page
    of 1080x2100 for one pixel was 25 s of the suite's CPU and blurred every pixel of it). A shot
    further off is scaled to the box."""
    if shot.size == size:
        return shot
    width, height = size
    if abs(shot.width - width) > FIT_SLACK_PX or abs(shot.height - height) > FIT_SLACK_PX:
        return shot.resize(size)
    kept = shot.crop((0, 0, min(width, shot.width), min(height, shot.height)))
    if kept.size == size:
        return kept
    canvas = Image.new(shot.mode, size)
    canvas.paste(kept, (0, 0))
    if width > kept.width:
        last_column = kept.crop((kept.width - 1, 0, kept.width, kept.height))
        canvas.paste(last_column.resize((width - kept.width, kept.height)), (kept.width, 0))
    if height > kept.height:
        last_row = canvas.crop((0, kept.height - 1, width, kept.height))
        canvas.paste(last_row.resize((width, height - kept.height)), (0, kept.height))
    return canvas


@dataclass(frozen=True)
class JavascriptInterface:
    """An object the app adds to its WebView (`addJavascriptInterface(object, name)`): the methods
    the page may call, and what the app does with each call (on the JavaBridge thread)."""

    name: str
    methods: tuple[str, ...]
    on_call: Callable[[str, list[Any]], None]


class PagePixels:
    """The page's last screenshot, drawn over the WebView's node (a render.Animation)."""

    def __init__(self, window: Window, node: Node) -> None:
        self.window = window
        self.node = node
        self.image: Image.Image | None = None

    def draw(self, image: Image.Image) -> None:
        shown = self.image
        if shown is None:
            return
        image.paste(shown, self.node.bounds[:2])


class WebView:
    """One WebView (see the module's docstring)."""

    def __init__(self, model: UiModel, window: Window, bounds: Bounds, package: str, *, res: str,
                 kind: Kind = Kind.WEBVIEW, debuggable: bool = True) -> None:
        self.model = model
        #: WebView.setWebContentsDebuggingEnabled as the app left it (process-wide)
        self.debuggable = debuggable
        self.window = window
        self.package = package
        self.kind = kind
        self.node = Node(WEBVIEW_CLASS, bounds, package=package, res=res, focusable=True)
        self.page: Page | None = None
        self.browser: ProcessBrowser | None = None
        self.loaded = threading.Event()
        self.error: str | None = None
        self._wake = threading.Event()
        self._closed = threading.Event()
        self._signature: object = None
        self._ids = Ids()  # each DOM node's id, kept from one read of the page's tree to the next
        self.pixels = PagePixels(window, self.node)
        #: the actions on the page's nodes (taps, text), in the order they came, off the UI thread
        self._actions = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"virtual-webview-input {res}")

    @property
    def scale(self) -> float:
        return self.model.geo.density / 160

    # --- loading ----------------------------------------------------------------------------------

    def load(self, url: str, *, assets: Mapping[str, Asset] | None = None, asset_origin: str = "",
             interfaces: tuple[JavascriptInterface, ...] = ()) -> None:
        """Load `url` on a thread of its own (see the module's docstring)."""
        threading.Thread(target=self._load, args=(url, assets, asset_origin, interfaces),
                         name=f"virtual-webview {self.node.res}", daemon=True).start()

    def _load(self, url: str, assets: Mapping[str, Asset] | None, asset_origin: str,
              interfaces: tuple[JavascriptInterface, ...]) -> None:
        try:
            page = self._open_page()
            if page is None:
                return
            if assets is not None:
                page.serve(asset_origin, assets)
            for interface in interfaces:
                page.add_javascript_interface(interface.name, interface.methods, interface.on_call)
            page.on_change(lambda event: self._wake.set())
            failure = page.navigate(url)
            if failure:
                log.info("WebView %s: %s: %s", self.node.res, url, failure)
            self.loaded.set()
            self._refresh_while_shown()
        except errors.MobileAgentError as exc:
            if not self._closed.is_set():
                log.warning("WebView %s: %s", self.node.res, exc)
                self._show_error(str(exc))

    def _open_page(self) -> Page | None:
        engine = cast("WebEngine | None", getattr(self.model, "web", None))  # the device's (ui/emulator.py)
        if engine is None:
            raise ChromiumMissing(f"{INSTALL_ADVICE}: this UI model was made without a device's web engine")
        left, top, right, bottom = self.node.bounds
        area = PageWindow(round((right - left) / self.scale), round((bottom - top) / self.scale), self.scale)
        browser = engine.browser_of(self.package, self.kind, area, debuggable=self.debuggable)
        page = browser.open_page(self.describe if self.kind is Kind.WEBVIEW else None, area)
        self.browser, self.page = browser, page
        if self._closed.is_set():  # destroyed while its process's chromium started
            browser.close_page(page)
            return None
        return page

    def _show_error(self, reason: str) -> None:
        """The WebView's own error page, as its text (net::ERR_..., or no engine at all)."""
        with self.model.lock:
            self.node.children = []
            self.node.add(Node("android.widget.TextView", self.node.bounds, text=f"Web page not available: {reason}",
                               package=self.package))
            self.model.nodes_changed(self.window, [self.node], ("structure",))
        self.error = reason

    # --- the nodes --------------------------------------------------------------------------------

    def _refresh_while_shown(self) -> None:
        while not self._closed.is_set():
            try:
                self.refresh()
            except errors.Closed as exc:  # the page or its chromium went
                log.debug("WebView %s: %s", self.node.res, exc)
                return
            except errors.MobileAgentError as exc:  # a slow answer: read it again at the next wake
                log.debug("WebView %s: %s", self.node.res, exc)
            self._wake.wait(POLL_S)
            self._wake.clear()

    def refresh(self) -> bool:
        """Read the page's accessibility tree and put it under the node; True when it changed."""
        page = self.page
        if page is None or page.closed:
            return False
        tree = page.accessibility()
        root_id = next(iter(tree), "")
        nodes = replica_nodes(tree, root_id, self.node.bounds, self.scale, self.package, self, self._ids)
        signature = [(n.cls, n.bounds, n.text, n.hint, n.focused, len(n.children))
                     for node in nodes for n in node.walk()]
        if signature == self._signature or self._closed.is_set():
            return False
        self._signature = signature
        with self.model.lock:
            self.node.children = []
            for node in nodes:
                self.node.add(node)
            self.model.nodes_changed(self.window, [self.node], ("structure",))
        shot = Image.open(io.BytesIO(page.screenshot())).convert("RGB")  # the nodes first: they are what tests wait on
        left, top, right, bottom = self.node.bounds
        shot = fitted(shot, (right - left, bottom - top))
        with self.model.lock:
            if self._closed.is_set():  # destroyed meanwhile: nothing more to draw
                return True
            self.pixels.image = shot
            if self.pixels not in self.model.animations:
                self.model.animations.append(self.pixels)
            self.model.redrawn(self.window)
        return True

    def tap(self, ax: AxNode, node: Node) -> None:
        """A tap on one of the page's nodes (ui/web_accessibility.WebActions); on a text field the
        keyboard comes up (the WebView's InputConnection shows the IME for a focused editable)."""
        if node.editable:
            self.model.focus(node)
        page = self.page
        if page is None or ax.box is None:
            return
        x, y = (ax.box[0] + ax.box[2]) / 2, (ax.box[1] + ax.box[3]) / 2

        def dispatch() -> None:
            try:
                page.call("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
                page.call("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
            except errors.MobileAgentError as exc:
                log.debug("WebView %s: a tap: %s", self.node.res, exc)
            self._wake.set()

        self._actions.submit(dispatch)

    def set_text(self, ax: AxNode, text: str) -> None:
        """ACTION_SET_TEXT on one of the page's fields (ui/web_accessibility.WebActions)."""
        page = self.page
        if page is None or ax.backend_id < 0:
            return

        def set_value() -> None:
            try:
                page.set_value(ax.backend_id, text)
            except errors.MobileAgentError as exc:
                log.debug("WebView %s: setting a field's text: %s", self.node.res, exc)
            self._wake.set()

        self._actions.submit(set_value)

    # --- what DevTools shows, and the end ----------------------------------------------------------

    def describe(self) -> dict[str, Any]:
        """AwDevToolsManagerDelegate::GetTargetDescription's fields for this WebView."""
        with self.model.lock:
            attached = self.window in self.model.stacked_windows()
            visible = attached and self.window.focused
        left, top, right, bottom = self.node.bounds
        return {"attached": attached, "empty": right <= left or bottom <= top, "height": bottom - top,
                "never_attached": False, "screenX": left, "screenY": top, "visible": visible,
                "width": right - left}

    def close(self) -> None:
        """WebView.destroy(): the page goes (on a thread: closing waits for chromium)."""
        if self._closed.is_set():
            return
        self._closed.set()
        self._wake.set()
        self._actions.shutdown(wait=False)
        with self.model.lock:
            if self.pixels in self.model.animations:
                self.model.animations.remove(self.pixels)
        browser, page = self.browser, self.page
        if browser is not None and page is not None:
            threading.Thread(target=browser.close_page, args=(page,), name=f"virtual-webview-close {self.node.res}",
                             daemon=True).start()
