"""The debuggable web targets' sockets: read from `/proc/net/unix`, each owner found by its pid.

Every debuggable WebView and Chrome serves the Chrome DevTools protocol on a listening abstract unix
socket whose name ends in `_devtools_remote`: a WebView's process serves
`webview_devtools_remote_<pid>` (android_webview/browser/aw_devtools_server.cc in Chromium), Chrome
serves `chrome_devtools_remote` (chrome/browser/android/devtools_server.cc), other browsers built
on Chromium `<name>_devtools_remote`. `chrome://inspect` finds them the same way
(chrome/browser/devtools/device/android_device_info_query.cc: the rows of `cat /proc/net/unix`
whose flags say listening, `00010000`, and whose state is unconnected, `01`, and whose path is an
abstract name ending so), and so does Playwright's Android support
(packages/playwright-core/src/server/android/android.ts, `_refreshWebViews`: the pid is the
number after `webview_devtools_remote_`, and the package is the name `ps -A` gives that pid).
Chrome's socket carries no pid: its owner is the process named `com.android.chrome` (or the
browser the name starts with).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

SUFFIX = "_devtools_remote"
WEBVIEW_PREFIX = "webview_devtools_remote"
CHROME_SOCKET = "chrome_devtools_remote"
CHROME_PACKAGE = "com.android.chrome"
LISTENING = 0x00010000  # __SO_ACCEPTCON in the flags column: the socket listens
UNCONNECTED = "01"  # SS_UNCONNECTED: a listening socket's state
LIST_COMMAND = "cat /proc/net/unix; echo; echo '--- ps'; ps -A -o PID,NAME 2>/dev/null || ps"
"""The sockets, then the processes: toybox's `ps -A -o PID,NAME` (Android 8 and later), else the
toolbox `ps` of Android 7, whose columns are USER PID PPID VSIZE RSS WCHAN PC NAME."""

_WEBVIEW_PID = re.compile(r"^webview_devtools_remote_(\d+)(?:_|$)")


@dataclass(frozen=True)
class DevToolsSocket:
    """One listening DevTools socket: its abstract name, the pid it names (a WebView's), and the
    package of its process (`""` when unknown)."""

    name: str
    pid: int | None
    package: str

    @property
    def kind(self) -> str:
        """`webview`, `chrome` or `browser` (another Chromium-based browser)."""
        if self.name.startswith(WEBVIEW_PREFIX):
            return "webview"
        return "chrome" if self.name == CHROME_SOCKET else "browser"


def listening_devtools_names(proc_net_unix: str) -> list[str]:
    """The abstract names of the listening DevTools sockets in `/proc/net/unix`, once each, in order.
    A row is `Num: RefCount Protocol Flags Type St Inode Path`; rows that are not listening, not
    abstract (`@`), or not DevTools are skipped, and so is anything that is not such a row."""
    names: list[str] = []
    for line in proc_net_unix.splitlines():
        fields = line.split(None, 7)
        if len(fields) < 8 or not fields[0].endswith(":") or not fields[7].startswith("@"):
            continue
        try:
            flags = int(fields[3], 16)
        except ValueError:
            continue
        name = fields[7][1:].rstrip()
        if flags & LISTENING and fields[5] == UNCONNECTED and _is_devtools(name) and name not in names:
            names.append(name)
    return names


def _is_devtools(name: str) -> bool:
    return name.endswith(SUFFIX) or name.startswith(WEBVIEW_PREFIX)


def process_names(ps_output: str) -> dict[int, str]:
    """`ps`'s rows as pid -> name: the PID column its header names (else the first), the name the last
    column; the header and other lines are skipped."""
    names: dict[int, str] = {}
    column = 0
    for line in ps_output.splitlines():
        words = line.split()
        if "PID" in words and "NAME" in words:
            column = words.index("PID")
            continue
        if len(words) > column + 1 and words[column].isdecimal():
            names[int(words[column])] = words[-1]
    return names


def pid_of(name: str) -> int | None:
    """The pid a WebView's socket names (`webview_devtools_remote_1234`), else None."""
    match = _WEBVIEW_PID.match(name)
    return int(match[1]) if match else None


def owner_of(name: str, pid: int | None, processes: Mapping[int, str]) -> str:
    """The package serving a socket: the process of its pid, else for a browser's socket the process
    named for it (Chrome's `com.android.chrome`), else `""`."""
    if pid is not None:
        return processes.get(pid, "")
    if name == CHROME_SOCKET:
        return CHROME_PACKAGE if CHROME_PACKAGE in processes.values() else ""
    stem = name.removesuffix(SUFFIX)
    return next((process for process in processes.values() if process.endswith(stem)), "")


def devtools_sockets(listing: str) -> list[DevToolsSocket]:
    """The sockets in the output of `LIST_COMMAND` (`/proc/net/unix`, then `ps`), each with its owner."""
    unix, _, ps = listing.partition("--- ps")
    processes = process_names(ps)
    return [DevToolsSocket(name, pid_of(name), owner_of(name, pid_of(name), processes))
            for name in listening_devtools_names(unix)]


def packages_of(sockets: Iterable[DevToolsSocket]) -> set[str]:
    return {socket.package for socket in sockets if socket.package}
