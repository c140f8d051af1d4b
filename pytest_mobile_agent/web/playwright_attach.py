"""Playwright attached over the bridge: `chromium.connect_over_cdp` on the bridge's loopback port.

Playwright is the optional `web` extra, imported here only, on first use; its absence is
`WebExtraMissing` naming the extra. Playwright's Android support attaches the same way
(packages/playwright-core/src/server/android/android.ts, `_connectToBrowser`: a WebSocket upgrade of
`/devtools/browser` over the abstract socket, then `CRBrowser.connect`, the default context taken as it
is); over a loopback bridge that is what `connect_over_cdp` does with a `ws://` endpoint. The
browser target's path comes from the socket's own `/json/version` (its `webSocketDebuggerUrl`, whose
host is the device's view and is replaced by the bridge's), `/devtools/browser` when it names none.
"""

from __future__ import annotations

import contextlib
import importlib
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pytest_mobile_agent.web.errors import WebExtraMissing, WebViewTooOld
from pytest_mobile_agent.web.listing import BrowserVersion
from pytest_mobile_agent.web.traced import is_playwright

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Playwright

MISSING_METHOD_WORDS = ("wasn't found", "was not found", "method not found", "-32601", "not supported")


def sync_api() -> Any:
    """`playwright.sync_api`, or WebExtraMissing naming the extra."""
    try:
        return importlib.import_module("playwright.sync_api")
    except ImportError as exc:
        raise WebExtraMissing(str(exc)) from exc


def start_playwright() -> Playwright:
    """A new Playwright driver for this thread; `stop()` ends it."""
    playwright: Playwright = sync_api().sync_playwright().start()
    return playwright


@dataclass
class _Driver:
    playwright: Playwright
    users: int = 0


_DRIVERS: dict[int, _Driver] = {}


def lease_driver() -> Playwright:
    """This thread's Playwright driver, started by its first user and shared by every user open at the
    same time (one sync Playwright per thread: a second would find the first's event loop running).
    Each lease ends with `release_driver`; the last one stops the driver, because a sync Playwright
    holds its event loop as the thread's running loop for as long as it lives, and a later test of the
    same thread that runs asyncio (pytest-asyncio, aiohttp) would fail on it."""
    thread = threading.get_ident()
    driver = _DRIVERS.get(thread)
    if driver is None:
        driver = _DRIVERS[thread] = _Driver(start_playwright())
    driver.users += 1
    return driver.playwright


def release_driver() -> None:
    """End one lease of this thread's driver; the last stops it."""
    thread = threading.get_ident()
    driver = _DRIVERS.get(thread)
    if driver is None:
        return
    driver.users -= 1
    if driver.users <= 0:
        del _DRIVERS[thread]
        with contextlib.suppress(Exception):  # a driver already gone (its process killed) stops as it can
            driver.playwright.stop()


def websocket_endpoint(port: int, version: BrowserVersion) -> str:
    return f"ws://127.0.0.1:{port}{version.websocket_path}"


def connect(playwright: Playwright, port: int, version: BrowserVersion, socket_name: str,
            timeout: float) -> Browser:
    """The browser behind the bridge on `port`; a DevTools too old for Playwright is WebViewTooOld
    naming its version and the call that failed."""
    try:
        return playwright.chromium.connect_over_cdp(websocket_endpoint(port, version), timeout=timeout * 1000)
    except Exception as exc:
        if is_playwright(exc, "Error") and lacks_a_method(str(exc)):
            raise WebViewTooOld(socket_name, version.browser, first_line(str(exc))) from exc
        raise


def lacks_a_method(message: str) -> bool:
    """Whether a connect failure says the DevTools do not know a method or a parameter Playwright sent."""
    lowered = message.lower()
    return any(words in lowered for words in MISSING_METHOD_WORDS)


def first_line(message: str) -> str:
    return message.strip().splitlines()[0] if message.strip() else message
