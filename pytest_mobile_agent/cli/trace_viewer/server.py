"""The trace viewer's server: the standard library's HTTP server on 127.0.0.1, for one checked trace.

    GET /?token=T                    the page, the trace's manifest inlined (one request draws it)
    GET /member?token=T&name=N       an image or a tree of the trace (only the names the zip holds)
    GET /video?token=T&name=N        a video segment the trace names, beside it (Range requests
                                     answered, so the page can seek)
    GET /web-trace?token=T&name=N    a Playwright trace of the test's web pages the trace names, beside it
                                     (a download: `playwright show-trace FILE` opens it)
    GET /favicon.ico                 the page's icon, the one request without the token (cli/favicon.py)

The trace is read and checked whole before the server starts (evidence/tracefile.read_trace), so a
truncated or foreign file is an error on the command line, never a half-drawn page. Every request
but the icon's carries the token printed with the URL, compared in constant time; no CDN, no request
leaves the host.
"""

from __future__ import annotations

import contextlib
import hmac
import json
import mimetypes
import re
import secrets
import threading
from collections.abc import Iterator
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from pytest_mobile_agent.cli import favicon
from pytest_mobile_agent.evidence.tracefile import LoadedTrace

HOST = "127.0.0.1"
RANGE = re.compile(r"bytes=(\d*)-(\d*)$")
TYPES = {
    ".jpg": "image/jpeg",
    ".png": "image/png",
    ".json": "application/json",
    ".mp4": "video/mp4",
    ".webm": "video/webm",
}


class Viewer:
    """One trace, its video files, and the token."""

    def __init__(self, trace: LoadedTrace, token: str | None = None) -> None:
        self.trace = trace
        self.token = token or secrets.token_urlsafe(24)
        video = trace.document.get("video") or {}
        names = [segment.get("file") for segment in video.get("segments", []) if isinstance(segment, dict)]
        self.videos = {
            name: trace.path.parent / name
            for name in names
            if isinstance(name, str) and name and Path(name).name == name
        }
        self.web_traces = beside(trace.path, [entry.get("file") for entry in trace.document.get("web_traces") or []
                                              if isinstance(entry, dict)])

    def page(self) -> bytes:
        static = resources.files("pytest_mobile_agent.cli.trace_viewer") / "static"
        inspector = resources.files("pytest_mobile_agent.cli.inspector") / "static"
        manifest = json.dumps(self.trace.document, ensure_ascii=False).replace("</", "<\\/")
        html = (static / "index.html").read_text(encoding="utf-8")
        html = (
            html.replace("/*INSPECTOR_STYLE*/", (inspector / "inspector.css").read_text(encoding="utf-8"))
            .replace("/*STYLE*/", (static / "viewer.css").read_text(encoding="utf-8"))
            .replace("/*SCRIPT*/", (static / "findings.js").read_text(encoding="utf-8")
                     + (static / "viewer.js").read_text(encoding="utf-8"))
            .replace("<!--ICON-->", favicon.LINK)
            .replace("__TOKEN__", json.dumps(self.token))
            .replace("/*TRACE*/", manifest)
        )
        return html.encode("utf-8")


def beside(trace: Path, names: list[object]) -> dict[str, Path]:
    """The files a trace names that lie beside it (a bare file name; anything else is not served)."""
    return {name: trace.parent / name for name in names if isinstance(name, str) and name and Path(name).name == name}


def handler_for(viewer: Viewer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        server_version = "mobile-agent-trace-viewer"

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
            pass

        def do_GET(self) -> None:  # noqa: N802 - the base class's name
            parts = urlsplit(self.path)
            query = {key: values[0] for key, values in parse_qs(parts.query).items()}
            if parts.path == favicon.PATH:
                self._send(HTTPStatus.OK, favicon.favicon(), favicon.CONTENT_TYPE)
            elif not hmac.compare_digest(query.get("token", ""), viewer.token):
                self._send(HTTPStatus.FORBIDDEN, b"a token is required: open the URL the command printed", "text/plain")
            elif parts.path == "/":
                self._send(HTTPStatus.OK, viewer.page(), "text/html; charset=utf-8")
            elif parts.path == "/member" and query.get("name") in viewer.trace.members:
                name = query["name"]
                self._send(
                    HTTPStatus.OK, viewer.trace.member(name), TYPES.get(Path(name).suffix, "application/octet-stream")
                )
            elif parts.path == "/video" and query.get("name") in viewer.videos:
                self._send_file(viewer.videos[query["name"]])
            elif parts.path == "/web-trace" and query.get("name") in viewer.web_traces:
                self._send_download(viewer.web_traces[query["name"]])
            else:
                self._send(HTTPStatus.NOT_FOUND, b"not found", "text/plain")

        def _send(self, status: HTTPStatus, body: bytes, kind: str, extra: dict[str, str] | None = None) -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.send_header("Referrer-Policy", "no-referrer")
            for key, value in (extra or {}).items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(body)

        def _send_download(self, path: Path) -> None:
            try:
                data = path.read_bytes()
            except OSError as exc:
                self._send(HTTPStatus.NOT_FOUND, f"the file is not there: {exc.strerror}".encode(), "text/plain")
                return
            self._send(HTTPStatus.OK, data, "application/zip",
                       {"Content-Disposition": f'attachment; filename="{path.name}"'})

        def _send_file(self, path: Path) -> None:
            try:
                data = path.read_bytes()
            except OSError as exc:
                self._send(HTTPStatus.NOT_FOUND, f"the video is not there: {exc.strerror}".encode(), "text/plain")
                return
            kind = TYPES.get(path.suffix, mimetypes.guess_type(path.name)[0] or "application/octet-stream")
            matched = RANGE.match(self.headers.get("Range", ""))
            if matched is None or not any(matched.groups()):
                self._send(HTTPStatus.OK, data, kind, {"Accept-Ranges": "bytes"})
                return
            first, last = matched.groups()
            start = int(first) if first else max(0, len(data) - int(last))
            end = min(len(data) - 1, int(last)) if first and last else len(data) - 1
            if start >= len(data) or start > end:
                self._send(
                    HTTPStatus.REQUESTED_RANGE_NOT_SATISFIABLE, b"", kind, {"Content-Range": f"bytes */{len(data)}"}
                )
                return
            self._send(
                HTTPStatus.PARTIAL_CONTENT,
                data[start : end + 1],
                kind,
                {"Accept-Ranges": "bytes", "Content-Range": f"bytes {start}-{end}/{len(data)}"},
            )

    return Handler


@contextlib.contextmanager
def serving(viewer: Viewer, port: int = 0) -> Iterator[str]:
    """Serve the trace on 127.0.0.1:`port` (0: a free one) in a thread; yields the page's URL."""
    server = ThreadingHTTPServer((HOST, port), handler_for(viewer))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, name="mobile-agent-trace-viewer", daemon=True)
    thread.start()
    try:
        yield f"http://{HOST}:{server.server_address[1]}/?token={viewer.token}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)
