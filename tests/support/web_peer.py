"""Real peers for the web room's tests: the host's chromium (the one the virtual device runs:
virtual/web/chromium.py `chromium_binary`) serving DevTools on a loopback port
(`--remote-debugging-port`), and a device whose abstract sockets lead there, listed in a
`/proc/net/unix` and a `ps` as Android's."""

from __future__ import annotations

import contextlib
import json
import socket
import subprocess
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from pytest_mobile_agent.errors import Closed
from pytest_mobile_agent.virtual.web.chromium import chromium_binary

CHROMIUM = chromium_binary()
NEEDS_CHROMIUM = pytest.mark.skipif(
    CHROMIUM is None, reason="needs Debian's chromium-headless-shell or chromium (sudo bash .ci/system-deps)")
NEEDS_PLAYWRIGHT = pytest.mark.skipif(
    not bool(__import__("importlib").util.find_spec("playwright")),
    reason="needs Playwright for Python: pip install 'pytest-mobile-agent[web]'")


@contextlib.contextmanager
def chromium_on_loopback(url: str = "about:blank", title: str | None = None) -> Iterator[int]:
    """A headless chromium serving DevTools on a free loopback port (yielded) once its page has `title`;
    killed at the end."""
    assert CHROMIUM is not None
    with tempfile.TemporaryDirectory(prefix="web-peer-", ignore_cleanup_errors=True) as profile:
        process = subprocess.Popen(
            [CHROMIUM, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
             "--no-first-run", "--remote-debugging-port=0", "--remote-debugging-address=127.0.0.1",
             f"--user-data-dir={profile}", url],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            port = _active_port(Path(profile) / "DevToolsActivePort", process)
            if title is not None:
                _wait_for_title(port, title)
            yield port
        finally:
            process.kill()
            process.wait(10)


def _active_port(path: Path, process: subprocess.Popen[bytes], timeout: float = 20.0) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"chromium exited with {process.returncode} before serving DevTools")
        if path.exists():
            first = path.read_text().split("\n", 1)[0].strip()
            if first.isdigit():
                return int(first)
        time.sleep(0.05)
    raise RuntimeError(f"chromium wrote no {path.name} within {timeout} s")


def _wait_for_title(port: int, title: str, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=5) as answer:
            if any(page.get("title") == title for page in json.load(answer)):
                return
        time.sleep(0.05)
    raise RuntimeError(f"chromium showed no page titled {title!r} within {timeout} s")


@dataclass
class _Output:
    body: str

    def text(self) -> str:
        return self.body


@dataclass
class _Stream:
    sock: socket.socket

    @property
    def socket(self) -> socket.socket:
        return self.sock

    def close(self) -> None:
        self.sock.close()


@dataclass
class LoopbackDevice:
    """A device whose listening abstract sockets (`name -> (pid or None, loopback port)`) reach DevTools
    servers on this host, its processes `pid -> name`; `drop(name)` ends every stream to a socket and
    unlists it, as a WebView's process ending does."""

    serial: str = "loopback-device"
    sockets: dict[str, int] = field(default_factory=dict)
    processes: dict[int, str] = field(default_factory=dict)
    shells: list[str] = field(default_factory=list)
    _open: dict[str, list[socket.socket]] = field(default_factory=dict)

    def serve(self, name: str, port: int, pid: int, package: str) -> None:
        self.sockets[name] = port
        self.processes[pid] = package

    def drop(self, name: str) -> None:
        self.sockets.pop(name, None)
        for sock in self._open.pop(name, []):
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    def proc_net_unix(self) -> str:
        rows = ["Num       RefCount Protocol Flags    Type St Inode Path"]
        for inode, name in enumerate(self.sockets, start=40000):
            rows.append(f"0000000000000000: 00000002 00000000 00010000 0001 01 {inode} @{name}")
        rows.append("0000000000000000: 00000003 00000000 00000000 0001 03 39999 @webview_devtools_remote_9")
        return "\n".join(rows) + "\n"

    def ps(self) -> str:
        rows = ["  PID NAME", "    1 init"]
        rows += [f"{pid:5d} {name}" for pid, name in sorted(self.processes.items())]
        return "\n".join(rows) + "\n"

    def shell(self, cmd: str) -> _Output:
        self.shells.append(cmd)
        return _Output(self.proc_net_unix() + "\n--- ps\n" + self.ps())

    def open_abstract(self, name: str) -> _Stream:
        if name not in self.sockets:
            raise Closed(f"localabstract:{name}: connection refused")
        sock = socket.create_connection(("127.0.0.1", self.sockets[name]), timeout=5)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # as the adb client's connection has it
        self._open.setdefault(name, []).append(sock)
        return _Stream(sock)
