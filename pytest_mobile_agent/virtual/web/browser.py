"""One device process's chromium: what renders that process's web content, its pages, and the
DevTools socket the process serves on the device.

Android has one DevTools server per process: a WebView app's process serves
`webview_devtools_remote_<pid>` (android_webview/browser/aw_devtools_server.cc names it with the
process's pid) listing only that process's WebViews, and Chrome serves `chrome_devtools_remote`
listing its tabs. So each device process that shows web content gets a chromium of its own, and
Chrome's socket never shows an app's WebView pages, nor the other way round. The socket is bound
when the first page opens (a WebView app starts its DevTools server when it creates its first
WebView with debugging on) and stays until the process dies (the kernel closes its listener) or the
device stops; then chromium is killed by its pid. `set_debuggable(False)` unbinds it while the
pages stay, as `WebView.setWebContentsDebuggingEnabled(false)` stops the process's DevTools server
(AwDevToolsServer.setRemoteDebuggingEnabled), and `set_debuggable(True)` binds it again.

Only the shell user, root and the process's own uid may connect (content/browser/android/
devtools_auth.cc, CanUserConnectToDevTools: the peer's SO_PEERCRED uid); any other app's
connection is closed at once.
"""

from __future__ import annotations

import contextlib
import enum
import logging
import threading

from pytest_mobile_agent import errors
from pytest_mobile_agent.virtual.kernel.sockets import Listener, SocketNamespace
from pytest_mobile_agent.virtual.kernel.streams import DeviceStream
from pytest_mobile_agent.virtual.web.cdp import CdpPipe
from pytest_mobile_agent.virtual.web.chromium import Chromium, Window
from pytest_mobile_agent.virtual.web.devtools_socket import serve_devtools
from pytest_mobile_agent.virtual.web.page import Describe, Page, ShownPage

log = logging.getLogger("pytest_mobile_agent.virtual")

CHROME_SOCKET = "chrome_devtools_remote"
WEBVIEW_SOCKET_PREFIX = "webview_devtools_remote_"
ROOT_UID = 0
SHELL_UID = 2000

class Kind(enum.Enum):
    WEBVIEW = "webview"
    CHROME = "chrome"


def android_product(product: str) -> str:
    """The product a WebView's and Chrome's DevTools name on Android (`Chrome/156.0.8078.114`):
    the headless shell names itself `HeadlessChrome/...`."""
    name, slash, version = product.partition("/")
    return f"Chrome/{version}" if slash and name == "HeadlessChrome" else product


def socket_name(kind: Kind, pid: int) -> str:
    return f"{WEBVIEW_SOCKET_PREFIX}{pid}" if kind is Kind.WEBVIEW else CHROME_SOCKET


class ProcessBrowser:
    """The chromium of one device process (see the module's docstring)."""

    def __init__(self, sockets: SocketNamespace, pid: int, package: str, kind: Kind, window: Window,
                 user_agent: str, uid: int = SHELL_UID) -> None:
        self.sockets = sockets
        self.pid = pid
        self.package = package
        self.kind = kind
        self.window = window
        self.user_agent = user_agent
        #: the process's uid: its own connections are let in, as the shell's and root's
        self.uid = uid
        self.label = f"{package} ({pid})"
        self.chromium: Chromium | None = None
        self.cdp: CdpPipe | None = None
        self.listener: Listener | None = None
        self.product = ""
        self._pages: list[ShownPage] = []
        self._lock = threading.Lock()
        self.stopped = False

    @property
    def socket_name(self) -> str:
        return socket_name(self.kind, self.pid)

    def start(self) -> None:
        """Start chromium and drop its first blank tab (the socket: `set_debuggable`)."""
        self.chromium = Chromium.start(self.user_agent, self.window.scale, label=self.label)
        try:
            self.cdp = CdpPipe(self.chromium.pipe_in, self.chromium.pipe_out, label=self.label)
            self.product = android_product(str(self.cdp.call("Browser.getVersion").get("product", "")))
            for target in self.cdp.call("Target.getTargets")["targetInfos"]:
                if target.get("type") == "page":
                    self.cdp.call("Target.closeTarget", {"targetId": target["targetId"]})
        except BaseException:
            self.stop()
            raise

    def set_debuggable(self, debuggable: bool) -> None:
        """Serve the process's DevTools socket, or stop serving it (see the module's docstring)."""
        with self._lock:
            if debuggable and self.listener is None and not self.stopped:
                self.listener = self.sockets.listen_abstract(self.socket_name, self.pid, on_connect=self._connected)
            elif not debuggable and self.listener is not None:
                listener, self.listener = self.listener, None
                listener.close()

    def _connected(self, stream: DeviceStream, peer_uid: int) -> None:
        if peer_uid not in (ROOT_UID, SHELL_UID, self.uid):
            log.info("%s: DevTools connection from uid %d refused", self.label, peer_uid)
            stream.close()
            return
        serve_devtools(stream, self)

    def open_page(self, describe: Describe | None = None, window: Window | None = None) -> Page:
        """A new page laid out in `window` (the WebView's size; the process's first one when None)."""
        if self.cdp is None or self.stopped:
            raise errors.Closed(f"{self.label}: the process's chromium is stopped")
        page = Page.open(self.cdp, window or self.window, label=self.label, native_scale=self.window.scale)
        with self._lock:
            self._pages.append(ShownPage(page, describe))
        return page

    def close_page(self, page: Page) -> None:
        with self._lock:
            self._pages = [shown for shown in self._pages if shown.page is not page]
        page.close()

    def shown_pages(self) -> list[ShownPage]:
        with self._lock:
            return list(self._pages)

    def stop(self) -> None:
        """Unbind the socket and kill chromium (by its pid's group)."""
        self.stopped = True
        listener, self.listener = self.listener, None
        if listener is not None:
            with contextlib.suppress(Exception):
                listener.close()
        if self.chromium is not None:
            self.chromium.stop()
