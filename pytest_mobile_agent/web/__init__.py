"""Web content on the device, reached through the DevTools protocol and driven by Playwright.

    sockets           the debuggable targets' sockets, from /proc/net/unix, each owner by its pid
    listing           a socket's /json/version and /json/list, over the adb client's localabstract: stream
    bridge            the loopback TCP listener relaying each connection through localabstract:
    playwright_attach Playwright (the optional `web` extra, imported on first use) attached to a bridge
    traced            a Page whose calls are steps of the test, named as Playwright names them
    content           one target's web content for one test: listed, attached, closed at the end
    errors            what can go wrong, each naming its cause and what to do next

It needs only the adb client (`seam.DeviceSockets`); the screen (mirror) and the opener use it. Its
names load on first use (`lazy.lazy_exports`), so importing it loads neither Playwright nor a module.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pytest_mobile_agent.lazy import lazy_exports

if TYPE_CHECKING:
    from pytest_mobile_agent.web.bridge import Bridge
    from pytest_mobile_agent.web.content import AttachedPage, WebContent, WebPage, WebTarget
    from pytest_mobile_agent.web.errors import (
        PageNotFound,
        WebError,
        WebExtraMissing,
        WebViewNotDebuggable,
        WebViewTooOld,
    )
    from pytest_mobile_agent.web.sockets import DevToolsSocket

__getattr__, __dir__ = lazy_exports(globals(), {
    "Bridge": "pytest_mobile_agent.web.bridge",
    "AttachedPage": "pytest_mobile_agent.web.content",
    "WebContent": "pytest_mobile_agent.web.content",
    "WebPage": "pytest_mobile_agent.web.content",
    "WebTarget": "pytest_mobile_agent.web.content",
    "PageNotFound": "pytest_mobile_agent.web.errors",
    "WebError": "pytest_mobile_agent.web.errors",
    "WebExtraMissing": "pytest_mobile_agent.web.errors",
    "WebViewNotDebuggable": "pytest_mobile_agent.web.errors",
    "WebViewTooOld": "pytest_mobile_agent.web.errors",
    "DevToolsSocket": "pytest_mobile_agent.web.sockets",
})

__all__ = [
    "AttachedPage",
    "Bridge",
    "DevToolsSocket",
    "PageNotFound",
    "WebContent",
    "WebError",
    "WebExtraMissing",
    "WebPage",
    "WebTarget",
    "WebViewNotDebuggable",
    "WebViewTooOld",
]
