"""A target's web content for one test: its debuggable targets listed, pages attached, all closed at
the end.

`WebContent` is opened by the target's opener on first use (stack/opener.py) and closed with the
target's other parts, under the automation lock, whether the test passed or not: each attachment's
Playwright trace stopped and written, the Playwright connection closed, the bridge closed, and the
Playwright driver stopped once no other target's content uses it. A socket gets one bridge and one Playwright
connection however many of its pages are attached; several sockets (two WebView processes, Chrome)
are attached side by side.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_mobile_agent.errors import Disconnected, MobileAgentError
from pytest_mobile_agent.web import listing
from pytest_mobile_agent.web.bridge import Bridge
from pytest_mobile_agent.web.errors import PageNotFound, WebViewNotDebuggable
from pytest_mobile_agent.web.listing import BrowserVersion, PageInfo
from pytest_mobile_agent.web.playwright_attach import connect, first_line, lease_driver, release_driver
from pytest_mobile_agent.web.seam import DeviceSockets
from pytest_mobile_agent.web.sockets import LIST_COMMAND, DevToolsSocket, devtools_sockets
from pytest_mobile_agent.web.traced import StepRecorder, Tracing, is_playwright, traced

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, ConsoleMessage, Page, Playwright

log = logging.getLogger("pytest_mobile_agent.web")
POLL_SECONDS = 0.2
DEFAULT_TIMEOUT = 10.0


@dataclass(frozen=True)
class WebPage:
    """A page a debuggable target serves: its url and title, and whether it is in front (a WebView's
    page: its description says visible and not empty; a browser's page: its package is in front)."""

    id: str
    url: str
    title: str
    in_front: bool


@dataclass(frozen=True)
class WebTarget:
    """One debuggable web target: its socket, the package serving it, its kind (`webview`, `chrome`,
    `browser`) and its pages."""

    socket: str
    package: str
    kind: str
    pid: int | None
    pages: tuple[WebPage, ...]


@dataclass
class AttachedPage:
    """A page a test attached: what a failing test's artifacts show of it."""

    page: Page
    socket: str
    package: str
    console: list[str] = field(default_factory=list)


@dataclass
class _Attachment:
    socket: DevToolsSocket
    version: BrowserVersion
    bridge: Bridge
    browser: Browser
    tracing: Path | None = None


def in_front(page: PageInfo, package: str, front_package: str | None) -> bool:
    if page.visible is not None:
        return page.visible and not page.empty
    return front_package is not None and package == front_package


def matches(page: PageInfo, url_contains: str | None, title: str | None) -> bool:
    return (url_contains is None or url_contains in page.url) and (title is None or title == page.title)


def wanted_text(package: str | None, url_contains: str | None, title: str | None) -> str:
    parts = [f"of {package}" if package else "", f"whose url contains {url_contains!r}" if url_contains else "",
             f"titled {title!r}" if title is not None else ""]
    return " ".join(part for part in parts if part) or "at all"


class WebContent:
    """The web content of one target during one test (`screen.webviews()`, `screen.web()`)."""

    def __init__(self, device: DeviceSockets, steps: StepRecorder, *, trace_dir: Path | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.device = device
        self.steps = steps
        self.trace_dir = trace_dir
        """Where each attachment's Playwright trace is written at the close (None: no trace)."""
        self._clock = clock
        self._playwright: Playwright | None = None
        self._attachments: dict[str, _Attachment] = {}
        self.pages: list[AttachedPage] = []
        self.trace_files: list[Path] = []
        self._closed = False
        self.webviews_on_screen: Callable[[], Collection[str]] = tuple
        """The packages showing a WebView now (the opener asks the screen): one of them serving no socket
        when a page is not found is WebViewNotDebuggable."""
        self.front_package: Callable[[], str | None] = lambda: None
        """The package in front (the opener asks the screen), whose pages come first."""

    # --- finding --------------------------------------------------------------------------------

    def sockets(self) -> list[DevToolsSocket]:
        """The listening DevTools sockets, with their packages (one shell command)."""
        return devtools_sockets(self.device.shell(LIST_COMMAND).text())

    def targets(self) -> list[WebTarget]:
        """Every debuggable web target and its pages; a socket that stops answering while listed (its
        process ending) is left out."""
        found = []
        front_package = self.front_package()
        for socket in self.sockets():
            try:
                pages = listing.pages(self.device, socket.name)
            except MobileAgentError as exc:
                log.info("web: %s did not list its pages: %s", socket.name, exc)
                continue
            found.append(WebTarget(socket.name, socket.package, socket.kind, socket.pid,
                                   tuple(WebPage(p.id, p.url, p.title, in_front(p, socket.package, front_package))
                                         for p in pages)))
        return found

    # --- attaching ------------------------------------------------------------------------------

    def page(self, package: str | None = None, *, url_contains: str | None = None, title: str | None = None,
             timeout: float | None = None) -> Page:
        """Wait for a page matching every criterion given (the package serving it, a part of its url, its
        title) and return a Playwright Page attached to it, its calls recorded as steps. Pages in front
        come first. A package showing a WebView (`webviews_on_screen`) with no socket at the deadline
        is WebViewNotDebuggable; otherwise PageNotFound lists the pages seen."""
        seconds = DEFAULT_TIMEOUT if timeout is None else timeout
        deadline = self._clock() + seconds
        seen: dict[str, str] = {}
        while True:
            sockets = [s for s in self.sockets() if package is None or s.package == package]
            found = self._find(sockets, url_contains, title, self.front_package(), seen)
            if found is not None:
                return self._attach_page(*found, deadline=deadline)
            if self._clock() >= deadline:
                self._raise_not_found(package, url_contains, title, seconds, sockets, self.webviews_on_screen(), seen)
            time.sleep(POLL_SECONDS)

    def _find(self, sockets: list[DevToolsSocket], url_contains: str | None, title: str | None,
              front: str | None, seen: dict[str, str]) -> tuple[DevToolsSocket, PageInfo] | None:
        candidates: list[tuple[bool, DevToolsSocket, PageInfo]] = []
        for socket in sockets:
            try:
                pages = listing.pages(self.device, socket.name)
            except MobileAgentError as exc:
                log.info("web: %s did not list its pages: %s", socket.name, exc)
                continue
            for page in pages:
                seen[f"{socket.name}/{page.id}"] = f"{socket.package or socket.name}: {page}"
                if matches(page, url_contains, title):
                    candidates.append((in_front(page, socket.package, front), socket, page))
        candidates.sort(key=lambda candidate: not candidate[0])
        return (candidates[0][1], candidates[0][2]) if candidates else None

    def _raise_not_found(self, package: str | None, url_contains: str | None, title: str | None, seconds: float,
                         sockets: list[DevToolsSocket], on_screen: Collection[str], seen: dict[str, str]) -> None:
        served = {socket.package for socket in sockets}
        silent = sorted(name for name in on_screen if name not in served and (package is None or name == package))
        if silent:
            raise WebViewNotDebuggable(silent, [socket.name for socket in self.sockets()])
        raise PageNotFound(wanted_text(package, url_contains, title), seconds, list(seen.values()))

    def _attach_page(self, socket: DevToolsSocket, info: PageInfo, *, deadline: float) -> Page:
        attachment = self._attachment(socket, deadline)
        page = self._playwright_page(attachment, info, deadline)
        attached = AttachedPage(page, socket.name, socket.package)
        page.on("console", lambda message: attached.console.append(console_line(message)))
        self.pages.append(attached)
        tracing = Tracing(self.steps, lambda exc: self.disconnection(attachment, page, exc))
        result: Page = traced(page, tracing)
        return result

    def _attachment(self, socket: DevToolsSocket, deadline: float) -> _Attachment:
        known = self._attachments.pop(socket.name, None)
        if known is not None:
            if not known.bridge.lost and known.browser.is_connected():
                self._attachments[socket.name] = known
                return known
            self._retire(known)  # the socket went and came back (the app restarted): attach anew
        if self._playwright is None:
            self._playwright = lease_driver()
        version = listing.browser_version(self.device, socket.name)
        bridge = Bridge(self.device, socket.name)
        try:
            browser = connect(self._playwright, bridge.port, version, socket.name,
                              max(1.0, deadline - self._clock()))
        except BaseException:
            bridge.close()
            raise
        attachment = _Attachment(socket, version, bridge, browser)
        self._attachments[socket.name] = attachment
        self._start_tracing(attachment)
        return attachment

    def _retire(self, attachment: _Attachment) -> None:
        """An attachment whose socket the device closed: its trace kept if it can still be written,
        its connection and its bridge closed."""
        self._stop_tracing(attachment)
        _quietly(attachment.browser.close)
        attachment.bridge.close()

    def _start_tracing(self, attachment: _Attachment) -> None:
        if self.trace_dir is None or not attachment.browser.contexts:
            return
        context = attachment.browser.contexts[0]
        try:
            context.tracing.start(screenshots=True, snapshots=True, title=attachment.socket.name)
        except Exception as exc:
            if not is_playwright(exc, "Error"):
                raise
            log.warning("web: Playwright's trace of %s did not start: %s", attachment.socket.name, exc)
            return
        attachment.tracing = self.trace_dir / f"playwright-{attachment.socket.name}.zip"

    def _playwright_page(self, attachment: _Attachment, info: PageInfo, deadline: float) -> Page:
        """The Playwright Page of the target `info` names (matched by its DevTools target id)."""
        started = self._clock()
        while True:
            for context in attachment.browser.contexts:
                for page in context.pages:
                    if target_id(context, page) == info.id:
                        return page
            if self._clock() >= deadline:
                raise PageNotFound(f"with target id {info.id} ({info}) among the pages Playwright attached to on "
                                   f"{attachment.socket.name}", self._clock() - started,
                                   [page.url for context in attachment.browser.contexts for page in context.pages])
            contexts = attachment.browser.contexts
            if contexts:
                try:
                    contexts[0].wait_for_event("page", timeout=POLL_SECONDS * 1000)
                except Exception as exc:
                    if not is_playwright(exc, "Error"):
                        raise
            else:
                time.sleep(POLL_SECONDS)

    # --- failures -------------------------------------------------------------------------------

    def disconnection(self, attachment: _Attachment, page: Page, exc: BaseException) -> BaseException | None:
        """A Playwright failure explained: the device closed the socket, or the page went away, is
        `Disconnected`, naming the page; anything else stays as it is."""
        if not is_playwright(exc, "Error"):
            return None
        lost = attachment.bridge.lost
        if not lost and not page.is_closed() and attachment.browser.is_connected():
            return None
        why = lost or "the page closed on the device"
        return Disconnected(f"the web page {page.url} of {attachment.socket.package or attachment.socket.name} "
                            f"({attachment.socket.name}) is gone: {why} ({first_line(str(exc))})",
                            reconnect_hint="the WebView or browser closed it; call screen.web() again for a page "
                                           "that is there, or check the app did not leave its web screen")

    # --- closing --------------------------------------------------------------------------------

    def close(self) -> None:
        """Every attachment's trace written (unless `stop_tracing` did already), its Playwright
        connection and its bridge closed, and this content's lease of the thread's Playwright driver
        ended (the last lease stops it: playwright_attach.lease_driver); each step runs even when one
        before it failed."""
        if self._closed:
            return
        self._closed = True
        with contextlib.ExitStack() as closing:
            if self._playwright is not None:
                closing.callback(release_driver)
            for attachment in self._attachments.values():
                closing.callback(attachment.bridge.close)
                closing.callback(_quietly, attachment.browser.close)
            closing.callback(self.stop_tracing)
        self._attachments.clear()
        self._playwright = None

    def stop_tracing(self) -> None:
        """Write each attachment's Playwright trace now (the plugin does at the end of the test's body,
        before a fixture's teardown stops the app and its DevTools socket with it)."""
        for attachment in self._attachments.values():
            if attachment.tracing is not None:
                self._stop_tracing(attachment)

    def _stop_tracing(self, attachment: _Attachment) -> None:
        path, attachment.tracing = attachment.tracing, None
        if path is None or not attachment.browser.contexts:
            return
        try:
            attachment.browser.contexts[0].tracing.stop(path=str(path))
        except Exception as exc:
            if not is_playwright(exc, "Error"):
                raise
            log.warning("web: Playwright's trace of %s was not written: %s", attachment.socket.name, exc)
            return
        self.trace_files.append(path)

    @property
    def browsers(self) -> dict[str, str]:
        """Per socket attached, the browser its `/json/version` names (`Chrome/136.0.7103.60`)."""
        return {name: attachment.version.browser for name, attachment in self._attachments.items()}

    @property
    def closed(self) -> bool:
        return self._closed

    def bridges(self) -> Iterator[Bridge]:
        return (attachment.bridge for attachment in self._attachments.values())


def _quietly(close: Callable[[], Any]) -> None:
    try:
        close()
    except Exception as exc:  # a connection the device already ended: closing it again tells nothing
        log.info("web: closing: %s", exc)


def target_id(context: BrowserContext, page: Page) -> str:
    """The DevTools target id of a Playwright page (`Target.getTargetInfo` on a CDP session)."""
    session = context.new_cdp_session(page)
    try:
        info = session.send("Target.getTargetInfo")
    finally:
        with contextlib.suppress(Exception):
            session.detach()
    return str(info.get("targetInfo", {}).get("targetId", ""))


def console_line(message: ConsoleMessage) -> str:
    return f"{message.type}: {message.text}"
