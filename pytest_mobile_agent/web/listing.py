"""The DevTools HTTP listing of one socket: `/json/version` (the browser) and `/json/list` (its pages).

Asked through the adb client's `localabstract:` stream, one request per connection, as
`chrome://inspect` asks each socket it found for its version and its page list over the same stream
(chrome/browser/devtools/device/devtools_device_discovery.cc). A WebView describes each
page in the `description` field, a JSON string with `attached`, `visible`, `empty`, `screenX`,
`screenY`, `width`, `height` (android_webview/browser/aw_devtools_manager_delegate.cc,
`GetTargetDescription`); `chrome://inspect` shows a page as in front when `visible` is true and
`empty` is false. Chrome writes no description: its pages' front is the socket's package being in
front.
"""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pytest_mobile_agent.errors import MobileAgentError, ProtocolError, Timeout
from pytest_mobile_agent.web.seam import DeviceSockets

MAX_ANSWER = 8 * 1024 * 1024


@dataclass(frozen=True)
class BrowserVersion:
    """`/json/version`: `Browser` (`Chrome/136.0.7103.60`), `Android-Package` (a WebView's app),
    `Protocol-Version`, `WebKit-Version`, and the browser target's WebSocket path."""

    browser: str
    package: str
    protocol: str
    user_agent: str
    websocket_path: str

    @property
    def major(self) -> int | None:
        """Chromium's major version (`Chrome/136.0...` -> 136), else None."""
        _, _, version = self.browser.partition("/")
        head = version.split(".", 1)[0]
        return int(head) if head.isdecimal() else None


@dataclass(frozen=True)
class PageInfo:
    """One page of `/json/list`: its target id, type, url, title, and what the WebView's description
    says (`visible`, `attached`, `empty`; None for a browser that writes none)."""

    id: str
    type: str
    url: str
    title: str
    visible: bool | None = None
    attached: bool | None = None
    empty: bool | None = None

    def __str__(self) -> str:
        shown = "" if self.visible is None else (" (visible)" if self.visible else " (hidden)")
        return f"{self.title!r} {self.url}{shown}"


def parse_version(body: Any) -> BrowserVersion:
    """`/json/version`'s object; anything else is a ProtocolError naming what came."""
    if not isinstance(body, Mapping):
        raise ProtocolError(f"/json/version answered {type(body).__name__}, not an object")
    path = _websocket_path(str(body.get("webSocketDebuggerUrl", "")))
    return BrowserVersion(browser=str(body.get("Browser", "")), package=str(body.get("Android-Package", "")),
                          protocol=str(body.get("Protocol-Version", "")), user_agent=str(body.get("User-Agent", "")),
                          websocket_path=path or "/devtools/browser")


def _websocket_path(url: str) -> str:
    """The path of a `ws://host:port/devtools/...` URL (the host is the device's view, not ours)."""
    if not url.startswith(("ws://", "wss://")):
        return ""
    rest = url.split("://", 1)[1]
    slash = rest.find("/")
    return rest[slash:] if slash >= 0 else ""


def parse_pages(body: Any) -> list[PageInfo]:
    """`/json/list`'s pages (entries of type `page`; other targets, workers and iframes, are not pages
    a test attaches to). A malformed entry is skipped; a body that is no list is a ProtocolError."""
    if not isinstance(body, list):
        raise ProtocolError(f"/json/list answered {type(body).__name__}, not a list")
    pages = []
    for entry in body:
        if not isinstance(entry, Mapping) or entry.get("type", "page") != "page" or not entry.get("id"):
            continue
        description = _description(entry.get("description"))
        pages.append(PageInfo(id=str(entry["id"]), type="page", url=str(entry.get("url", "")),
                              title=str(entry.get("title", "")), visible=_flag(description, "visible"),
                              attached=_flag(description, "attached"), empty=_flag(description, "empty")))
    return pages


def _description(text: Any) -> Mapping[str, Any]:
    if not isinstance(text, str) or not text.startswith("{"):
        return {}
    try:
        value = json.loads(text)
    except ValueError:
        return {}
    return value if isinstance(value, Mapping) else {}


def _flag(description: Mapping[str, Any], key: str) -> bool | None:
    value = description.get(key)
    return value if isinstance(value, bool) else None


def get_json(device: DeviceSockets, socket_name: str, path: str, timeout: float = 5.0) -> Any:
    """GET `path` from the DevTools server on `localabstract:<socket_name>` and decode its JSON."""
    stream = device.open_abstract(socket_name)
    try:
        sock = stream.socket
        sock.settimeout(timeout)
        request = f"GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
        sock.sendall(request.encode("ascii"))
        status, body = _read_answer(sock, time.monotonic() + timeout, f"{socket_name} {path}")
    except TimeoutError as exc:
        raise Timeout(f"reading {path} from {socket_name}", timeout) from exc
    except OSError as exc:
        raise MobileAgentError(f"{socket_name} {path}: {exc}") from exc
    finally:
        stream.close()
    if status != 200:
        raise ProtocolError(f"{socket_name} answered {path} with HTTP {status}: {body[:200]!r}")
    try:
        return json.loads(body)
    except ValueError as exc:
        raise ProtocolError(f"{socket_name} answered {path} with no JSON: {body[:200]!r}") from exc


def _read_answer(sock: socket.socket, deadline: float, what: str) -> tuple[int, bytes]:
    """An HTTP/1.1 answer: its status and body (Content-Length, else to the end of the stream)."""
    data = b""
    while b"\r\n\r\n" not in data:
        data += _recv(sock, deadline, what)
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = parse_status(lines[0], what)
    length = content_length(lines[1:])
    while length is None or len(body) < length:
        chunk = _recv(sock, deadline, what, end_ok=length is None)
        if not chunk:
            break
        body += chunk
        if len(body) > MAX_ANSWER:
            raise ProtocolError(f"{what}: the answer is over {MAX_ANSWER} bytes")
    return status, body if length is None else body[:length]


def _recv(sock: socket.socket, deadline: float, what: str, *, end_ok: bool = False) -> bytes:
    sock.settimeout(max(0.01, deadline - time.monotonic()))
    chunk = sock.recv(65536)
    if not chunk and not end_ok:
        raise ProtocolError(f"{what}: the DevTools server closed the stream before its answer ended")
    return chunk


def parse_status(line: str, what: str = "the answer") -> int:
    parts = line.split()
    if len(parts) < 2 or not parts[0].startswith("HTTP/") or not parts[1].isdecimal():
        raise ProtocolError(f"{what}: not an HTTP status line: {line[:80]!r}")
    return int(parts[1])


def content_length(header_lines: list[str]) -> int | None:
    for line in header_lines:
        name, _, value = line.partition(":")
        if name.strip().lower() == "content-length" and value.strip().isdecimal():
            return int(value.strip())
    return None


def browser_version(device: DeviceSockets, socket_name: str, timeout: float = 5.0) -> BrowserVersion:
    return parse_version(get_json(device, socket_name, "/json/version", timeout))


def pages(device: DeviceSockets, socket_name: str, timeout: float = 5.0) -> list[PageInfo]:
    return parse_pages(get_json(device, socket_name, "/json/list", timeout))
