"""The errors of web content (the `web` room), each naming its cause and what to do next.

    MobileAgentError
    └── WebError
        ├── WebViewNotDebuggable   the app shows a WebView, but serves no DevTools socket
        ├── PageNotFound           no page matched within the timeout (the pages seen are listed)
        ├── WebExtraMissing        Playwright is not installed (the `web` extra)
        └── WebViewTooOld          the DevTools behind the socket lack what Playwright needs

A socket that closes while a page is attached is the driver's `errors.Disconnected`.
"""

from __future__ import annotations

from collections.abc import Sequence

from pytest_mobile_agent.errors import MobileAgentError

EXTRA = "pip install 'pytest-mobile-agent[web]'"


class WebError(MobileAgentError):
    """Web content (a WebView, Chrome, a Custom Tab) could not be found or driven."""


class WebViewNotDebuggable(WebError):
    """The app's WebView is on screen but its process serves no `webview_devtools_remote_<pid>` socket."""

    def __init__(self, packages: Sequence[str], sockets: Sequence[str]) -> None:
        self.packages = tuple(packages)
        seen = ", ".join(sockets) if sockets else "none"
        super().__init__(
            f"{', '.join(self.packages)} shows a WebView, but no DevTools socket of its process is listed in "
            f"/proc/net/unix (debuggable sockets seen: {seen}): the WebView is not debuggable",
            advice="call WebView.setWebContentsDebuggingEnabled(true) in the app (it is on by default in a "
                   "debuggable build: android:debuggable, a debug build type), install that build and run again")


class PageNotFound(WebError):
    """No page matched within the timeout; `seen` lists every page found meanwhile."""

    def __init__(self, wanted: str, seconds: float, seen: Sequence[str]) -> None:
        self.seen = tuple(seen)
        listing = "".join(f"\n  {page}" for page in self.seen) if self.seen else " none"
        super().__init__(
            f"no web page {wanted} appeared within {seconds:g} s; the pages seen:{listing}",
            advice="check the url_contains/title/package given against the pages listed (screen.webviews() "
                   "lists them), or give a longer timeout when the page loads slowly")

    def is_timeout(self) -> bool:
        return True


class WebExtraMissing(WebError):
    """Playwright for Python, which drives the pages, is not installed."""

    def __init__(self, reason: str) -> None:
        super().__init__(f"web content is driven by Playwright for Python, which cannot be imported ({reason})",
                         advice=f"install the web extra: {EXTRA}")


class WebViewTooOld(WebError):
    """The DevTools behind a socket answered, but lack a method Playwright needs to attach."""

    def __init__(self, socket: str, browser: str, failure: str) -> None:
        self.browser = browser
        super().__init__(
            f"the DevTools of {socket} ({browser or 'an unnamed browser'}) lack what Playwright needs to "
            f"attach: {failure}",
            advice="update Android System WebView (or Chrome) on the device from the Play Store or a newer "
                   "system image; Playwright's connect_over_cdp needs a current Chromium")
