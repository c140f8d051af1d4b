"""A device process's DevTools socket: each connection is relayed to the process's chromium
(chromium's own DevTools server on a loopback port of the host), with the discovery answers an
Android WebView or Chrome gives (content/browser/devtools/devtools_http_handler.cc, the Android
build):

* `GET /json/version`: chromium's own, with `"Android-Package"` (the process's package), the
  product as Android names it (`Chrome/<version>`, browser.android_product), and the
  browser target at `ws://HOST/devtools/browser`: on Android the browser target is discoverable
  without its GUID (`DevToolsManagerDelegate::IsBrowserTargetDiscoverable`, true for WebView in
  android_webview/browser/aw_devtools_manager_delegate.cc and for Chrome), which is the path
  Playwright's android.ts opens (`GET /devtools/browser`, no Host header);
* `GET /json`, `/json/list`: the pages this process shows (never another process's), each with
  `ws://HOST/devtools/page/ID`; a WebView's `description` is the JSON object WebView writes
  (`AwDevToolsManagerDelegate::GetTargetDescription`: attached, empty, height, never_attached,
  screenX, screenY, visible, width, keys sorted as base::JSONWriter writes them), a Chrome tab's
  is empty;
* a WebSocket upgrade to `/devtools/...`: forwarded to chromium (the Host set to chromium's own
  address, `/devtools/browser` mapped to chromium's `/devtools/browser/<guid>`), then the bytes
  flow both ways until either side closes, chromium's product named as Android names it
  (virtual/web/product_frames.py);
* `/json/new`: refused as a WebView refuses it (its delegate creates no targets: devtools_http_handler
  answers 500 "Could not create new page"); the double's Chrome keeps one tab (virtual/ui/browser.py)
  and refuses it the same way rather than open a tab its screen would not show;
* anything else: chromium's own answer.

HOST is the Host header the client sent, so that a host-side bridge on any loopback port gets URLs
that lead back to itself (`localhost` when the client sent none, as Playwright's does not).
"""

from __future__ import annotations

import contextlib
import json
import logging
import socket
import threading
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from typing import Any, Protocol

from pytest_mobile_agent import errors
from pytest_mobile_agent.virtual.kernel.streams import ByteStream, DeviceStream, pump
from pytest_mobile_agent.virtual.web.chromium import Chromium
from pytest_mobile_agent.virtual.web.page import ShownPage
from pytest_mobile_agent.virtual.web.product_frames import AndroidProductFrames

log = logging.getLogger("pytest_mobile_agent.virtual")

MAX_HEAD = 64 * 1024
IDLE_TIMEOUT_S = 60.0
FETCH_TIMEOUT_S = 5.0


class ProcessBrowser(Protocol):
    """What the socket serves: one process's chromium and pages (virtual/web/browser.py)."""

    label: str
    package: str
    product: str
    user_agent: str
    chromium: Chromium | None

    def shown_pages(self) -> list[ShownPage]: ...


@dataclass
class Request:
    method: str
    target: str
    version: str
    headers: dict[str, str] = field(default_factory=dict)
    lines: list[str] = field(default_factory=list)

    @property
    def path(self) -> str:
        return self.target.split("?", 1)[0]

    @property
    def upgrade(self) -> bool:
        return self.headers.get("upgrade", "").lower() == "websocket"

    def host(self) -> str:
        return self.headers.get("host") or "localhost"


def serve_devtools(stream: DeviceStream, browser: ProcessBrowser) -> None:
    """Serve one connection to the socket on a thread of its own."""
    threading.Thread(target=_serve, args=(stream, browser), name=f"virtual-devtools {browser.label}",
                     daemon=True).start()


def _serve(stream: DeviceStream, browser: ProcessBrowser) -> None:
    buffer = b""
    relayed = False
    try:
        while True:
            head, buffer = _read_head(stream, buffer)
            if head is None:
                return
            request = parse_request(head)
            length = int(request.headers.get("content-length", "0") or 0)
            while len(buffer) < length:
                chunk = stream.recv(IDLE_TIMEOUT_S)
                if not chunk:
                    return
                buffer += chunk
            body, buffer = buffer[:length], buffer[length:]
            if request.upgrade and request.path.startswith("/devtools/"):
                relayed = _relay_websocket(stream, browser, request, buffer)
                return
            stream.send(answer_http(browser, request, body))
            if request.headers.get("connection", "").lower() == "close":
                return
    except errors.MobileAgentError as exc:
        log.debug("%s: DevTools connection ended: %s", browser.label, exc)
    finally:
        if not relayed:
            stream.close()


def _read_head(stream: DeviceStream, buffer: bytes) -> tuple[bytes | None, bytes]:
    while b"\r\n\r\n" not in buffer:
        if len(buffer) > MAX_HEAD:
            raise errors.ProtocolError(f"a DevTools request head over {MAX_HEAD} bytes")
        chunk = stream.recv(IDLE_TIMEOUT_S)
        if not chunk:
            return None, b""
        buffer += chunk
    head, _, rest = buffer.partition(b"\r\n\r\n")
    return head, rest


def parse_request(head: bytes) -> Request:
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ")
    if len(parts) != 3:
        raise errors.ProtocolError(f"not an HTTP request line: {lines[0]!r}")
    request = Request(parts[0], parts[1], parts[2], lines=lines[1:])
    for line in lines[1:]:
        name, sep, value = line.partition(":")
        if sep:
            request.headers[name.strip().lower()] = value.strip()
    return request


# --- discovery ------------------------------------------------------------------------------------


def answer_http(browser: ProcessBrowser, request: Request, body: bytes) -> bytes:
    path = request.path.rstrip("/") or "/"
    if path == "/json/version":
        return _json_response(version_of(browser, request.host()))
    if path in ("/json", "/json/list"):
        return _json_response(targets_of(browser, request.host()))
    if path == "/json/new":
        return _text_response(500, "Internal Server Error", "Could not create new page")
    return _from_chromium(browser, request, body)


def version_of(browser: ProcessBrowser, host: str) -> dict[str, Any]:
    version = dict(_chromium_json(browser, "/json/version"))
    version["Android-Package"] = browser.package
    if browser.product:
        version["Browser"] = browser.product
    version["User-Agent"] = browser.user_agent
    version["webSocketDebuggerUrl"] = f"ws://{host}/devtools/browser"
    return version


def targets_of(browser: ProcessBrowser, host: str) -> list[dict[str, Any]]:
    shown = {entry.page.target_id: entry for entry in browser.shown_pages()}
    chromium = browser.chromium
    own_address = f"127.0.0.1:{chromium.port}" if chromium is not None else ""
    targets = []
    for target in _chromium_json(browser, "/json/list"):
        entry = shown.get(str(target.get("id")))
        if entry is None:
            continue
        target = dict(target)
        description = entry.describe() if entry.describe is not None else None
        target["description"] = "" if description is None else json.dumps(description, separators=(",", ":"),
                                                                             sort_keys=True)
        target["webSocketDebuggerUrl"] = f"ws://{host}/devtools/page/{target['id']}"
        if own_address and isinstance(target.get("devtoolsFrontendUrl"), str):
            target["devtoolsFrontendUrl"] = target["devtoolsFrontendUrl"].replace(own_address, host)
        targets.append(target)
    return targets


def _chromium_json(browser: ProcessBrowser, path: str) -> Any:
    chromium = browser.chromium
    if chromium is None or not chromium.alive():
        raise errors.Closed(f"{browser.label}: chromium is gone")
    url = f"http://127.0.0.1:{chromium.port}{path}"
    try:
        with urllib.request.urlopen(url, timeout=FETCH_TIMEOUT_S) as answer:  # noqa: S310 - our own loopback port
            return json.loads(answer.read())
    except (OSError, ValueError) as exc:
        raise errors.Closed(f"{browser.label}: chromium's {path}: {exc}") from None


def _json_response(value: Any) -> bytes:
    payload = json.dumps(value, indent=3).encode()
    return (b"HTTP/1.1 200 OK\r\nContent-Type: application/json; charset=UTF-8\r\n"
            + f"Content-Length: {len(payload)}\r\n\r\n".encode() + payload)


def _text_response(status: int, reason: str, text: str) -> bytes:
    payload = text.encode()
    return (f"HTTP/1.1 {status} {reason}\r\nContent-Type: text/html; charset=UTF-8\r\n"
            f"Content-Length: {len(payload)}\r\n\r\n").encode() + payload


def _from_chromium(browser: ProcessBrowser, request: Request, body: bytes) -> bytes:
    chromium = browser.chromium
    if chromium is None:
        raise errors.Closed(f"{browser.label}: chromium is gone")
    forwarded = urllib.request.Request(f"http://127.0.0.1:{chromium.port}{request.target}",
                                       data=body or None, method=request.method)
    try:
        with urllib.request.urlopen(forwarded, timeout=FETCH_TIMEOUT_S) as answer:  # noqa: S310 - loopback
            status, reason, payload = answer.status, answer.reason, answer.read()
            content_type = answer.headers.get("Content-Type", "text/plain")
    except urllib.error.HTTPError as failure:
        status, reason, payload = failure.code, failure.reason, failure.read()
        content_type = failure.headers.get("Content-Type", "text/plain")
    except OSError as exc:
        raise errors.Closed(f"{browser.label}: chromium's {request.path}: {exc}") from None
    head = (f"HTTP/1.1 {status} {reason}\r\nContent-Type: {content_type}\r\n"
            f"Content-Length: {len(payload)}\r\n\r\n").encode()
    return head + bytes(payload)


# --- the WebSocket ---------------------------------------------------------------------------------


class TcpStream:
    """A host TCP socket as a ByteStream, for kernel.streams.pump."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock

    def send(self, data: bytes) -> None:
        self.sock.sendall(data)

    def recv(self, timeout: float | None = None) -> bytes:
        data: bytes = self.sock.recv(1 << 16)
        return data

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)
        self.sock.close()


def _relay_websocket(stream: DeviceStream, browser: ProcessBrowser, request: Request, early: bytes) -> bool:
    chromium = browser.chromium
    if chromium is None or not chromium.alive():
        raise errors.Closed(f"{browser.label}: chromium is gone")
    target = request.target
    if request.path.rstrip("/") == "/devtools/browser" or request.path.startswith("/devtools/browser/"):
        target = chromium.browser_path
    lines = [f"{request.method} {target} {request.version}", f"Host: 127.0.0.1:{chromium.port}"]
    lines += [line for line in request.lines if not line.lower().startswith("host:")]
    sock = socket.create_connection(("127.0.0.1", chromium.port), timeout=FETCH_TIMEOUT_S)
    sock.settimeout(None)
    sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + early)
    host_side: ByteStream = TcpStream(sock)
    pump(stream, host_side, name=f"virtual-devtools-up {browser.label}")
    pump(AndroidProductFrames(host_side), stream, name=f"virtual-devtools-down {browser.label}")
    return True
