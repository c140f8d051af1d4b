"""/json/version and /json/list as a WebView and Chrome answer them, and the HTTP answer around them."""

from __future__ import annotations

import json
import socket
import threading
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_mobile_agent.errors import ProtocolError
from pytest_mobile_agent.web.listing import (
    browser_version,
    content_length,
    pages,
    parse_pages,
    parse_status,
    parse_version,
)

# the description string as android_webview/browser/aw_devtools_manager_delegate.cc writes it
WEBVIEW_PAGE = {
    "description": json.dumps({"attached": True, "empty": False, "height": 2154, "screenX": 0, "screenY": 246,
                               "visible": True, "width": 1080}),
    "devtoolsFrontendUrl": "https://chrome-devtools-frontend.appspot.com/serve_rev/@x/inspector.html?ws=x",
    "id": "B3B1", "title": "Sign in", "type": "page",
    "url": "https://appassets.androidplatform.net/assets/signin.html",
    "webSocketDebuggerUrl": "ws://localhost/devtools/page/B3B1",
}


def test_a_webview_page_says_whether_it_is_visible() -> None:
    [page] = parse_pages([WEBVIEW_PAGE, {"type": "service_worker", "id": "W", "url": "x"}])
    assert (page.id, page.title, page.visible, page.attached, page.empty) == ("B3B1", "Sign in", True, True, False)


def test_a_chrome_page_has_no_description_and_no_visibility() -> None:
    [page] = parse_pages([{"description": "", "id": "C1", "title": "Example", "type": "page",
                           "url": "https://example.com/"}])
    assert page.visible is None


def test_the_version_names_the_browser_the_package_and_the_browser_targets_path() -> None:
    version = parse_version({"Android-Package": "dev.mobileagent.fixture", "Browser": "Chrome/136.0.7103.60",
                             "Protocol-Version": "1.3",
                             "webSocketDebuggerUrl": "ws://localhost:9222/devtools/browser/abc"})
    assert (version.package, version.major, version.websocket_path) == (
        "dev.mobileagent.fixture", 136, "/devtools/browser/abc")
    assert parse_version({"Browser": "Chrome/30.0.0.0"}).websocket_path == "/devtools/browser"


def test_what_is_no_listing_is_a_protocol_error_naming_it() -> None:
    with pytest.raises(ProtocolError, match="not a list"):
        parse_pages({"id": "x"})
    with pytest.raises(ProtocolError, match="not an object"):
        parse_version([])


_JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=20),
                     lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner,
                                                                                   max_size=6), max_leaves=20)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.dictionaries(st.sampled_from(["id", "type", "url", "title", "description"]), _JSON | st.text()),
                max_size=6))
def test_any_listing_entries_parse_to_pages_or_are_skipped(entries: list[dict[str, Any]]) -> None:
    for page in parse_pages(entries):
        assert page.id and page.type == "page"


class _OneAnswer:
    """A device whose every abstract socket answers one HTTP request with `answer`."""

    serial = "scripted"

    def __init__(self, answer: bytes) -> None:
        self.answer = answer
        self.requests: list[bytes] = []

    def shell(self, cmd: str) -> Any:
        raise AssertionError("no shell")

    def open_abstract(self, name: str) -> Any:
        ours, theirs = socket.socketpair()

        def serve() -> None:
            self.requests.append(theirs.recv(4096))
            for at in range(0, len(self.answer), 7):  # in small pieces, as a slow transport delivers
                theirs.sendall(self.answer[at:at + 7])
            theirs.close()
        threading.Thread(target=serve, daemon=True).start()

        class Stream:
            socket = ours

            def close(self) -> None:
                ours.close()
        return Stream()


def test_the_listing_is_read_over_the_stream_to_its_content_length() -> None:
    body = json.dumps([WEBVIEW_PAGE]).encode()
    device = _OneAnswer(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                        + str(len(body)).encode() + b"\r\n\r\n" + body + b"garbage after")
    [page] = pages(device, "webview_devtools_remote_1")
    assert page.url.endswith("signin.html")
    assert device.requests[0].startswith(b"GET /json/list HTTP/1.1\r\n")


def test_a_failed_answer_names_its_status() -> None:
    device = _OneAnswer(b"HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\n\r\nnot found")
    with pytest.raises(ProtocolError, match="HTTP 404"):
        browser_version(device, "chrome_devtools_remote")


def test_an_answer_cut_short_is_a_protocol_error() -> None:
    device = _OneAnswer(b"HTTP/1.1 200 OK\r\nContent")
    with pytest.raises(ProtocolError, match="closed the stream"):
        pages(device, "chrome_devtools_remote")


def test_digits_that_are_no_decimal_digits_are_no_numbers() -> None:
    # '²'.isdigit() is true, but int('²') fails: hypothesis found it in ps's pid column
    assert parse_version({"Browser": "Chrome/²"}).major is None
    with pytest.raises(ProtocolError, match="not an HTTP status line"):
        parse_status("HTTP/1.1 ²00 OK")
    assert content_length(["Content-Length: ²"]) is None
