"""The doctor's `web` check: the debuggable web targets the device lists, and one attach's round trip.

It lists the DevTools sockets (`/proc/net/unix`, web/sockets.py) with their packages and pages, then
attaches Playwright to one page through the loopback bridge (web/content.py) and evaluates an
expression there. With no debuggable target at all it opens a blank page in Chrome, when Chrome is
installed (Chrome serves `chrome_devtools_remote` on any device with USB debugging on), and stops
Chrome again afterwards if it was not running before.
"""

from __future__ import annotations

import shlex
import time
from dataclasses import dataclass, field
from typing import Any

from pytest_mobile_agent.adb import Device
from pytest_mobile_agent.mirror.steps import Steps
from pytest_mobile_agent.web.content import WebContent, WebTarget
from pytest_mobile_agent.web.sockets import CHROME_PACKAGE

CHROME_ACTIVITY = "com.google.android.apps.chrome.Main"
BLANK = "about:blank"
ATTACH_TIMEOUT = 20.0


class NoWebTarget(Exception):  # noqa: N818 - the check's outcome (skipped), not an error
    """No debuggable web target, and no Chrome to open one in."""


@dataclass
class WebCheck:
    device: Device
    started_chrome: bool = False
    figures: dict[str, Any] = field(default_factory=dict)

    def run(self) -> str:
        web = WebContent(self.device, Steps())
        try:
            targets = web.targets() or self._open_chrome(web)
            target = next(t for t in targets if t.pages)
            started = time.monotonic()
            page = web.page(target.package or None, url_contains=target.pages[0].url, timeout=ATTACH_TIMEOUT)
            attached = time.monotonic() - started
            url = page.url  # the attached page's (a listing taken as Chrome opens can show it without one yet)
            started = time.monotonic()
            answer = page.evaluate("6 * 7")
            round_trip = time.monotonic() - started
            browser = ", ".join(web.browsers.values())
        finally:
            web.close()
        self.figures.update(targets=len(targets), attach_ms=round(attached * 1000),
                            round_trip_ms=round(round_trip * 1000), browser=browser)
        if answer != 42:
            raise AssertionError(f"the page evaluated 6 * 7 as {answer!r}")
        return (f"{describe(targets)}; attached to {url} ({browser}) in {attached:.2f} s, "
                f"a round trip {round_trip * 1000:.0f} ms")

    def _open_chrome(self, web: WebContent) -> list[WebTarget]:
        if not self.device.shell(f"pm path {CHROME_PACKAGE}").text().strip():
            raise NoWebTarget("no debuggable web target (a debuggable app's WebView, Chrome) and no Chrome to "
                              "open one in: open a WebView of a debuggable build, or install Chrome")
        running = bool(self.device.shell(f"pidof {CHROME_PACKAGE}").text().strip())
        self.device.shell(f"am start -W -a android.intent.action.VIEW -d {shlex.quote(BLANK)} "
                          f"-n {CHROME_PACKAGE}/{CHROME_ACTIVITY}")
        self.started_chrome = not running
        deadline = time.monotonic() + ATTACH_TIMEOUT
        while time.monotonic() < deadline:
            targets = [t for t in web.targets() if t.pages]
            if targets:
                return targets
            time.sleep(0.2)
        raise AssertionError(f"Chrome showed {BLANK} but listed no page on {CHROME_PACKAGE}'s DevTools socket "
                             f"within {ATTACH_TIMEOUT:g} s")

    def clean_up(self) -> None:
        if self.started_chrome:
            self.device.shell(f"am force-stop {CHROME_PACKAGE}")
            self.started_chrome = False


def describe(targets: list[WebTarget]) -> str:
    parts = [f"{t.socket} ({t.package or 'unknown package'}, {len(t.pages)} page{'s' * (len(t.pages) != 1)})"
             for t in targets]
    return f"{len(targets)} debuggable target{'s' * (len(targets) != 1)}: " + ", ".join(parts)
