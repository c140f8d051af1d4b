"""One page in a device process's chromium: a WebView's content or a Chrome tab, driven by the
double through its own DevTools session (`Target.attachToTarget` with `flatten`, on the pipe).

What an app does to its WebView is done here through the protocol, never inside the page's script:

* `serve(origin, files)`: the app answers requests for its own origin from its assets, as
  `WebViewClient.shouldInterceptRequest` with androidx.webkit's `WebViewAssetLoader` does for
  `https://appassets.androidplatform.net/assets/...`: `Fetch.enable` on the origin, each paused
  request fulfilled from `files` (404 for a path the app has not);
* `add_javascript_interface(name, methods, on_call)`: an object `name` on every page the WebView
  loads whose methods call back into the app, as `WebView.addJavascriptInterface` injects its
  object (the calls arrive through `Runtime.addBinding`'s `bindingCalled`, on a thread of their
  own, as the interface's methods run on the WebView's JavaBridge thread, not the UI thread);
* `navigate(url)`, `info()` (url, title), `accessibility()` (the page's accessibility tree with
  each node's box, for the replica: virtual/ui/webview.py), `close()`.
"""

from __future__ import annotations

import base64
import json
import logging
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from pytest_mobile_agent import errors
from pytest_mobile_agent.virtual.web.cdp import CdpPipe
from pytest_mobile_agent.virtual.web.chromium import Window

log = logging.getLogger("pytest_mobile_agent.virtual")

BRIDGE_BINDING = "__mobileAgentJavascriptInterface"
LOAD_TIMEOUT_S = 10.0
ASSET_ORIGIN = "https://appassets.androidplatform.net"


@dataclass(frozen=True)
class Asset:
    """A file the app serves to its WebView."""

    mime: str
    body: bytes


#: what a WebView reports of itself for its target's description (virtual/ui/webview.py)
Describe = Callable[[], "dict[str, Any] | None"]


@dataclass(frozen=True)
class AxNode:
    """A node of the page's accessibility tree, with its box in CSS pixels of the viewport
    (None when it has no layout box)."""

    node_id: str
    role: str
    name: str
    value: str
    ignored: bool
    children: tuple[str, ...]
    box: tuple[float, float, float, float] | None
    focused: bool
    editable: bool
    #: the DOM node it stands for (`backendDOMNodeId`), -1 for none
    backend_id: int = -1


class Page:
    """A page target and the double's session on it."""

    def __init__(self, cdp: CdpPipe, target_id: str, session_id: str, *, label: str) -> None:
        self.cdp = cdp
        self.target_id = target_id
        self.session_id = session_id
        self.label = label
        self.closed = False
        #: what DOMSnapshot's boxes are divided by to give CSS pixels
        self.snapshot_scale = 1.0
        self._loaded = threading.Event()
        self._assets: dict[str, Asset] = {}
        self._asset_origin = ""
        self._interfaces: dict[str, Callable[[str, list[Any]], None]] = {}
        self._listeners: list[Callable[[str], None]] = []
        cdp.subscribe(self._on_event)

    @classmethod
    def open(cls, cdp: CdpPipe, window: Window, *, label: str, native_scale: float = 0.0) -> Page:
        """A new blank page laid out as a phone's viewport of `window`, attached and listening
        for its loads. `native_scale` is chromium's own scale factor: the pixel ratio is emulated
        only when the window's differs (a `wm density` since chromium started)."""
        # a window of its own: every WebView on the screen is shown at once, and a tab behind
        # another would be neither painted nor given input (a background tab's frames stop)
        target_id = cdp.call("Target.createTarget", {"url": "about:blank", "newWindow": True})["targetId"]
        session_id = cdp.call("Target.attachToTarget", {"targetId": target_id, "flatten": True})["sessionId"]
        page = cls(cdp, target_id, session_id, label=label)
        native = window.scale == native_scale
        page.call("Emulation.setDeviceMetricsOverride", {"width": window.width_css, "height": window.height_css,
                                                         "deviceScaleFactor": 0 if native else window.scale,
                                                         "mobile": True})
        # DOMSnapshot's layout boxes and scroll offsets come in device pixels at chromium's own
        # scale factor, in CSS pixels under an emulated one
        page.snapshot_scale = window.scale if native else 1.0
        page.call("Page.enable")
        page.call("Runtime.enable")
        return page

    def call(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        return self.cdp.call(method, params, session=self.session_id)

    def on_change(self, listener: Callable[[str], None]) -> None:
        """`listener(event)` after something that may change what the page shows (a load, a DOM
        change, a call from the page), on the pipe's reader thread: it must not call back."""
        self._listeners.append(listener)

    # --- what the app sets up -------------------------------------------------------------------

    def serve(self, origin: str, files: Mapping[str, Asset]) -> None:
        self._asset_origin = origin.rstrip("/")
        self._assets = dict(files)
        self.call("Fetch.enable", {"patterns": [{"urlPattern": self._asset_origin + "/*"}]})

    def add_javascript_interface(self, name: str, methods: tuple[str, ...],
                                 on_call: Callable[[str, list[Any]], None]) -> None:
        if not self._interfaces:
            self.call("Runtime.addBinding", {"name": BRIDGE_BINDING})
        self._interfaces[name] = on_call
        script = (f"window[{json.dumps(name)}] = Object.freeze(Object.fromEntries({json.dumps(list(methods))}"
                  f".map(m => [m, (...args) => window[{json.dumps(BRIDGE_BINDING)}](JSON.stringify("
                  f"{{object: {json.dumps(name)}, method: m, args}}))])));")
        self.call("Page.addScriptToEvaluateOnNewDocument", {"source": script})

    def navigate(self, url: str, timeout: float = LOAD_TIMEOUT_S) -> str:
        """Load `url` and wait for its load event; the network error chromium met ("" when none),
        in which case the page shows chromium's own error page, as a WebView or Chrome does."""
        self._loaded.clear()
        answer = self.call("Page.navigate", {"url": url})
        error = str(answer.get("errorText") or "")
        if not error and not self._loaded.wait(timeout):
            raise errors.Timeout(f"{self.label}: loading {url}", timeout)
        return error

    # --- what the replica reads -------------------------------------------------------------------

    def info(self) -> dict[str, Any]:
        """`Target.getTargetInfo`: the page's url, title, type."""
        info = self.cdp.call("Target.getTargetInfo", {"targetId": self.target_id})["targetInfo"]
        return info if isinstance(info, dict) else {}

    def accessibility(self) -> dict[str, AxNode]:
        """The page's full accessibility tree (`Accessibility.getFullAXTree`), each node with its
        layout box from `DOMSnapshot.captureSnapshot`; the first node is the root."""
        tree = self.call("Accessibility.getFullAXTree")["nodes"]
        boxes = self._boxes()
        nodes: dict[str, AxNode] = {}
        for raw in tree:
            properties = {p["name"]: p.get("value", {}).get("value") for p in raw.get("properties", [])}
            nodes[raw["nodeId"]] = AxNode(
                node_id=raw["nodeId"], role=str(raw.get("role", {}).get("value", "")),
                name=str(raw.get("name", {}).get("value", "") or ""),
                value=str(raw.get("value", {}).get("value", "") or ""), ignored=bool(raw.get("ignored")),
                children=tuple(raw.get("childIds", ())), box=boxes.get(raw.get("backendDOMNodeId", -1)),
                focused=bool(properties.get("focused")), editable=properties.get("editable") is not None,
                backend_id=int(raw.get("backendDOMNodeId", -1)))
        return nodes

    def _boxes(self) -> dict[int, tuple[float, float, float, float]]:
        snapshot = self.call("DOMSnapshot.captureSnapshot", {"computedStyles": []})
        boxes: dict[int, tuple[float, float, float, float]] = {}
        for document in snapshot.get("documents", [])[:1]:  # the main frame's document
            backend_ids = document["nodes"].get("backendNodeId", [])
            layout = document["layout"]
            dx, dy = document.get("scrollOffsetX", 0.0), document.get("scrollOffsetY", 0.0)
            k = self.snapshot_scale
            for index, (x, y, w, h) in zip(layout["nodeIndex"], layout["bounds"], strict=True):
                left, top = (x - dx) / k, (y - dy) / k
                boxes[backend_ids[index]] = (left, top, left + w / k, top + h / k)
        return boxes

    def set_value(self, backend_id: int, text: str) -> None:
        """A text field's value set as Chromium's accessibility bridge does for ACTION_SET_TEXT
        (BrowserAccessibilityManagerAndroid: the field focused, its value replaced, an `input`
        event fired)."""
        obj = self.call("DOM.resolveNode", {"backendNodeId": backend_id})["object"]
        self.call("Runtime.callFunctionOn", {
            "objectId": obj["objectId"], "arguments": [{"value": text}],
            "functionDeclaration": "function (text) { this.focus(); this.value = text;"
                                   " this.dispatchEvent(new Event('input', {bubbles: true})); }"})

    def screenshot(self) -> bytes:
        """The page's pixels as chromium paints them (PNG, at the device's pixel ratio). Encoded for
        speed (`Page.captureScreenshot`'s `optimizeForSpeed`, DevTools protocol: "optimize image
        encoding for speed, not for resulting size"): still lossless, 49 against 77 ms of chromium's
        CPU for a page of 1080x2100 here."""
        shot = self.call("Page.captureScreenshot", {"format": "png", "optimizeForSpeed": True})
        return base64.b64decode(shot["data"])

    def close(self) -> None:
        """The page goes (its WebView destroyed, its tab closed): DevTools clients attached to it
        see it detach."""
        if self.closed:
            return
        self.closed = True
        self.cdp.unsubscribe(self._on_event)
        try:
            self.cdp.call("Target.closeTarget", {"targetId": self.target_id})
        except errors.MobileAgentError as exc:
            log.debug("%s: closing the page: %s", self.label, exc)

    # --- events ------------------------------------------------------------------------------------

    def _on_event(self, method: str, params: dict[str, Any], session: str | None) -> None:
        if session != self.session_id:
            return
        if method == "Page.loadEventFired":
            self._loaded.set()
        elif method == "Fetch.requestPaused":
            self._in_thread(self._fulfil, params)
        elif method == "Runtime.bindingCalled" and params.get("name") == BRIDGE_BINDING:
            self._in_thread(self._bridge_call, params)
        for listener in list(self._listeners):
            listener(method)

    def _in_thread(self, work: Callable[[dict[str, Any]], None], params: dict[str, Any]) -> None:
        def run() -> None:
            try:
                work(params)
            except errors.MobileAgentError as exc:
                log.debug("%s: %s", self.label, exc)

        threading.Thread(target=run, name=f"virtual-page {self.label}", daemon=True).start()

    def _fulfil(self, params: dict[str, Any]) -> None:
        url = str(params["request"]["url"]).split("#")[0].split("?")[0]
        asset = self._assets.get(url[len(self._asset_origin):]) if url.startswith(self._asset_origin) else None
        if asset is None:
            self.call("Fetch.fulfillRequest", {"requestId": params["requestId"], "responseCode": 404,
                                               "responseHeaders": [{"name": "Content-Type", "value": "text/plain"}],
                                               "body": base64.b64encode(b"Not found").decode()})
            return
        self.call("Fetch.fulfillRequest", {
            "requestId": params["requestId"], "responseCode": 200,
            "responseHeaders": [{"name": "Content-Type", "value": asset.mime}],
            "body": base64.b64encode(asset.body).decode()})

    def _bridge_call(self, params: dict[str, Any]) -> None:
        try:
            call = json.loads(params.get("payload", ""))
        except ValueError:
            return
        on_call = self._interfaces.get(str(call.get("object")))
        if on_call is not None and isinstance(call.get("args"), list):
            on_call(str(call.get("method")), call["args"])


@dataclass
class ShownPage:
    """A page a process shows, and how its WebView describes itself (None for a Chrome tab)."""

    page: Page
    describe: Describe | None
