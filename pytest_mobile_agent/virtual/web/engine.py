"""The device's web engine: a chromium per device process that shows web content, started on the
first page that process opens (most tests never show any, and a chromium costs a process tree), and
stopped when the process dies or the device stops (`close`).

`browser_of(package, kind, window)` gives the process's `ProcessBrowser` (virtual/web/browser.py),
starting it when needed; `ChromiumMissing` (virtual/web/chromium.py) when the host has no chromium.
The user agent is the one Android's WebView sends (android_webview/common/aw_content_client.cc
GetUserAgent: the platform's, with `; wv` and `Version/4.0` before the Chrome product; Chrome's is
the reduced one, Android 10 and `K` in place of the release and model, per the User-Agent
Reduction of Chrome 110).
"""

from __future__ import annotations

import functools
import logging
import subprocess
import threading
from collections.abc import Callable, Mapping

from pytest_mobile_agent import errors
from pytest_mobile_agent.virtual.kernel.process import ProcessTable
from pytest_mobile_agent.virtual.kernel.sockets import SocketNamespace
from pytest_mobile_agent.virtual.web.browser import Kind, ProcessBrowser
from pytest_mobile_agent.virtual.web.chromium import Window, require_chromium

log = logging.getLogger("pytest_mobile_agent.virtual")


class WebEngine:
    """Every device process's chromium (see the module's docstring)."""

    def __init__(self, sockets: SocketNamespace, processes: ProcessTable, properties: Mapping[str, str],
                 pid_of: Callable[[str], int | None]) -> None:
        self.sockets = sockets
        self.processes = processes
        self.properties = properties
        self.pid_of = pid_of
        self._browsers: dict[int, ProcessBrowser] = {}
        self._lock = threading.Lock()
        self._closed = False

    def browser_of(self, package: str, kind: Kind, window: Window, *, debuggable: bool = True) -> ProcessBrowser:
        """The chromium of `package`'s running process, its DevTools socket served when
        `debuggable` (a WebView app's setting, process-wide; Chrome's always is); errors.Closed when
        the process does not run."""
        with self._lock:
            if self._closed:
                raise errors.Closed("the virtual device is stopped")
            pid = self.pid_of(package)
            proc = self.processes.get(pid) if pid is not None else None
            if pid is None or proc is None or proc.dead:
                raise errors.Closed(f"{package} has no running process to show web content in")
            browser = self._browsers.get(pid)
            if browser is not None and not browser.stopped:
                browser.set_debuggable(debuggable)
                return browser
            browser = ProcessBrowser(self.sockets, pid, package, kind, window, self.user_agent(kind), uid=proc.uid)
            browser.start()
            browser.set_debuggable(debuggable)
            self._browsers[pid] = browser
        proc.at_death(lambda: self._process_died(pid))
        return browser

    def browsers(self) -> list[ProcessBrowser]:
        with self._lock:
            return list(self._browsers.values())

    def user_agent(self, kind: Kind) -> str:
        version = chromium_version()
        if kind is Kind.CHROME:
            major = version.split(".")[0]
            return (f"Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) "
                    f"Chrome/{major}.0.0.0 Mobile Safari/537.36")
        release = self.properties.get("ro.build.version.release", "16")
        model = self.properties.get("ro.product.model", "sdk_gphone64_x86_64")
        build = self.properties.get("ro.build.id", "BP22.250325.006")
        return (f"Mozilla/5.0 (Linux; Android {release}; {model} Build/{build}; wv) AppleWebKit/537.36 "
                f"(KHTML, like Gecko) Version/4.0 Chrome/{version} Mobile Safari/537.36")

    def _process_died(self, pid: int) -> None:
        """Called with the kernel's lock held (the kernel has closed the listener already): the
        rest runs on a thread of its own, since the engine's lock is held across a chromium's start,
        which binds its socket under the kernel's lock."""
        threading.Thread(target=self._forget, args=(pid,), name=f"virtual-chromium-stop {pid}", daemon=True).start()

    def _forget(self, pid: int) -> None:
        with self._lock:
            browser = self._browsers.pop(pid, None)
        if browser is not None:
            browser.stop()

    def close(self) -> None:
        """Stop every chromium (the device powers off)."""
        with self._lock:
            self._closed = True
            browsers, self._browsers = list(self._browsers.values()), {}
        for browser in browsers:
            browser.stop()


@functools.lru_cache(maxsize=1)
def chromium_version() -> str:
    """The host chromium's version (`chromium --version`: `Chromium 156.0.8078.114 built on ...`)."""
    binary = require_chromium()
    try:
        out = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=10.0,
                             check=False).stdout
    except (OSError, subprocess.TimeoutExpired):
        return "0.0.0.0"
    words = [word for word in out.split() if word[:1].isdigit() and word.count(".") == 3]
    return words[0] if words else "0.0.0.0"
