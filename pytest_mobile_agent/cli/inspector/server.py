"""The inspector's web server: the page, its API and a WebSocket that pushes the mirror's changes.

One thread owns the target (`DeviceWorker`): the mirror, like the `screen` fixture, is driven from
one thread, and the automation lock is released by the thread that took it. aiohttp's event loop
hands it each request's work and awaits the answer, so a slow device never stalls the page's
other requests. The server binds 127.0.0.1 only, and every request, the page's own included,
must carry the token printed with the URL (`?token=`), compared in constant time; only the icon is
served without it (cli/favicon.py says why).

    GET  /?token=T                      the page
    GET  /api/state?token=T             windows and nodes (also pushed on /api/live)
    GET  /api/web?token=T               the debuggable web targets and their pages (screen.webviews())
    GET  /api/screen?token=T            the screen: the controller's latest frame (JPEG), else an
                                        agent screenshot (PNG)
    GET  /api/element?token=T&ref=N     an element's attributes and the line that finds it
    GET  /api/element?token=T&x=X&y=Y   the same for the element under a point (physical pixels)
    POST /api/action?token=T            {"action": "tap"|"type"|"key"|"swipe"|"assert_text", ...}
    POST /api/record?token=T            {"tab": "Login"} starts recording, {"stop": true} ends it
    GET  /api/recording?token=T         the recorded test's source
    GET  /api/live?token=T              WebSocket: {"generation": G} whenever the view changes
    GET  /favicon.ico                   the page's icon (an SVG), the one request without the token
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import dataclasses
import hmac
import json
import logging
import queue
import secrets
import threading
from collections.abc import Awaitable, Callable, Iterator
from importlib import resources
from typing import Any, TypeVar

from aiohttp import WSCloseCode, WSMsgType, web

from pytest_mobile_agent import errors
from pytest_mobile_agent.cli import favicon
from pytest_mobile_agent.cli.inspector.page import element_at, element_details, page_state
from pytest_mobile_agent.cli.inspector.recorder import Recording
from pytest_mobile_agent.cli.inspector.target import Inspected
from pytest_mobile_agent.control.app_under_test import AppUnderTest
from pytest_mobile_agent.mirror.keys import key_code
from pytest_mobile_agent.mirror.replica import Entry, View
from pytest_mobile_agent.mirror.unique import Locator, unique_locator

log = logging.getLogger("pytest_mobile_agent.cli.inspector")

T = TypeVar("T")
HOST = "127.0.0.1"
LIVE_PERIOD = 0.25
"""Seconds between the live feed's looks at the mirror (a look is a device read only when the
mirror's events or frames say something changed)."""
TABS = ("Login", "List", "Big")
APP = "app"
"""What a recording starts instead of a fixture tab: the app under test (`--app-package`)."""


class DeviceWorker:
    """The one thread that opens the target, does all work on it, and closes it."""

    def __init__(self, open_target: Callable[[], contextlib.AbstractContextManager[Inspected]]) -> None:
        self._open = open_target
        self._jobs: queue.Queue[tuple[Callable[[Inspected], Any], concurrent.futures.Future[Any]] | None] = (
            queue.Queue()
        )
        self._ready: concurrent.futures.Future[Inspected] = concurrent.futures.Future()
        self._thread = threading.Thread(target=self._run, name="mobile-agent-inspector-device", daemon=True)

    def start(self, timeout: float = 120.0) -> Inspected:
        """Open the target on the worker's thread; its error is raised here."""
        self._thread.start()
        return self._ready.result(timeout)

    def submit(self, job: Callable[[Inspected], T]) -> concurrent.futures.Future[T]:
        future: concurrent.futures.Future[T] = concurrent.futures.Future()
        self._jobs.put((job, future))
        return future

    def stop(self, timeout: float = 30.0) -> None:
        self._jobs.put(None)
        self._thread.join(timeout)

    def _run(self) -> None:
        try:
            with self._open() as target:
                self._ready.set_result(target)
                self._serve(target)
        except BaseException as exc:  # noqa: BLE001 - handed to the thread that started us
            if not self._ready.done():
                self._ready.set_exception(exc)
            else:
                log.exception("closing the inspector's target failed")

    def _serve(self, target: Inspected) -> None:
        while (item := self._jobs.get()) is not None:
            job, future = item
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(job(target))
            except Exception as exc:  # noqa: BLE001 - the request's error, for its handler
                future.set_exception(exc)


class Inspector:
    """The page's state beside the device: the recording, if one is under way."""

    def __init__(self, worker: DeviceWorker, token: str | None = None) -> None:
        self.worker = worker
        self.token = token or secrets.token_urlsafe(24)
        self.recording: Recording | None = None
        self.last_recording: Recording | None = None
        self.sockets: set[web.WebSocketResponse] = set()

    async def on_device(self, job: Callable[[Inspected], T]) -> T:
        return await asyncio.wrap_future(self.worker.submit(job))

    # --- the application ---------------------------------------------------------------------

    def app(self) -> web.Application:
        app = web.Application(middlewares=[self._token_required, _errors_as_json])
        app.router.add_get("/", self._page)
        app.router.add_get("/api/state", self._state)
        app.router.add_get("/api/screen", self._screen)
        app.router.add_get("/api/web", self._web)
        app.router.add_get("/api/element", self._element)
        app.router.add_post("/api/action", self._action)
        app.router.add_post("/api/record", self._record)
        app.router.add_get("/api/recording", self._recording)
        app.router.add_get("/api/live", self._live)
        app.router.add_get(favicon.PATH, _favicon)
        app.on_shutdown.append(self._close_sockets)
        return app

    async def _close_sockets(self, app: web.Application) -> None:
        """aiohttp's shutdown waits for handlers: the live feeds end when their sockets close."""
        for ws in list(self.sockets):
            await ws.close(code=WSCloseCode.GOING_AWAY, message=b"the inspector is stopping")

    @web.middleware
    async def _token_required(
        self, request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
    ) -> web.StreamResponse:
        if request.path == favicon.PATH:
            return await handler(request)
        given = request.query.get("token", "")
        if not hmac.compare_digest(given.encode(), self.token.encode()):
            return web.json_response({"error": "this inspector needs the token from the URL it printed"}, status=403)
        return await handler(request)

    # --- handlers ----------------------------------------------------------------------------

    async def _page(self, request: web.Request) -> web.Response:
        return web.Response(text=page_html(self.token), content_type="text/html",
                            headers={"Cache-Control": "no-store", "Referrer-Policy": "no-referrer"})

    async def _state(self, request: web.Request) -> web.Response:
        def state(target: Inspected) -> dict[str, Any]:
            view = target.screen.snapshot()
            return {**page_state(view), "serial": target.serial, "recording": self._recording_state(),
                    "app": _app_name(target)}

        return web.json_response(await self.on_device(state))

    async def _web(self, request: web.Request) -> web.Response:
        def targets(target: Inspected) -> dict[str, Any]:
            return {"targets": [dataclasses.asdict(found) for found in target.screen.webviews()]}

        return web.json_response(await self.on_device(targets))

    async def _screen(self, request: web.Request) -> web.Response:
        data, content_type = await self.on_device(_screen_image)
        return web.Response(body=data, content_type=content_type, headers={"Cache-Control": "no-store"})

    async def _element(self, request: web.Request) -> web.Response:
        query = request.query

        def details(target: Inspected) -> dict[str, Any] | None:
            view = target.screen.snapshot()
            entry = _entry_for(view, query)
            return element_details(view, entry) if entry is not None else None

        found = await self.on_device(details)
        if found is None:
            return web.json_response({"error": "no element there"}, status=404)
        return web.json_response(found)

    async def _action(self, request: web.Request) -> web.Response:
        body = await _json_body(request)
        done = await self.on_device(lambda target: self._act(target, body))
        return web.json_response({**done, "recording": self._recording_state()})

    async def _record(self, request: web.Request) -> web.Response:
        body = await _json_body(request)
        if body.get("stop"):
            self.last_recording, self.recording = self.recording, None
            return web.json_response({"recording": None, "source": self._source()})
        tab = body.get("tab", "Login")
        if tab == APP:
            await self.on_device(_start_app)
            self.recording = Recording.of_app()
        elif tab in TABS:
            await self.on_device(lambda target: _start_fixture(target, tab))
            self.recording = Recording.of_fixture(tab)
        else:
            raise errors.InvalidArgument(f"tab is one of {', '.join(TABS)} or {APP}, not {tab!r}")
        return web.json_response({"recording": self._recording_state()})

    async def _recording(self, request: web.Request) -> web.Response:
        return web.Response(text=self._source(), content_type="text/x-python")

    async def _live(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(heartbeat=10.0)
        await ws.prepare(request)
        self.sockets.add(ws)
        sent: int | None = None
        reader = asyncio.ensure_future(ws.receive())
        try:
            while not ws.closed:
                generation = await self.on_device(lambda target: target.screen.snapshot().generation)
                if generation != sent:
                    await ws.send_json({"generation": generation})
                    sent = generation
                done, _ = await asyncio.wait({reader}, timeout=LIVE_PERIOD)
                if reader in done:
                    if reader.result().type in (WSMsgType.CLOSE, WSMsgType.CLOSING, WSMsgType.CLOSED, WSMsgType.ERROR):
                        break
                    reader = asyncio.ensure_future(ws.receive())
        finally:
            reader.cancel()
            self.sockets.discard(ws)
        return ws

    # --- actions, on the device's thread -----------------------------------------------------------

    def _act(self, target: Inspected, body: dict[str, Any]) -> dict[str, Any]:
        screen = target.screen
        action = body.get("action")
        if action == "key":
            key = str(body.get("key", ""))
            key_code(key)  # an unknown name is an InvalidArgument before anything is sent
            screen.press_key(key)
            self._record_step(lambda r: r.press_key(key))
        elif action == "swipe":
            x1, y1, x2, y2 = (_int(body, name) for name in ("x1", "y1", "x2", "y2"))
            screen.swipe(x1, y1, x2, y2, resting=True)
            self._record_step(lambda r: r.swipe(x1, y1, x2, y2))
        elif action in ("tap", "type", "assert_text"):
            view = screen.snapshot()
            entry = _entry_for(view, {"ref": str(_int(body, "ref", "an element's ref, a number"))})
            if entry is None:
                raise errors.StaleElement(f"element @{body.get('ref')} is no longer on the screen")
            locator = unique_locator(view, entry)
            self._element_action(target, str(action), locator, view, entry, body)
        else:
            raise errors.InvalidArgument(f"action is one of tap, type, key, swipe, assert_text, not {action!r}")
        screen.settle(timeout=2.0)
        return {"done": action}

    def _element_action(self, target: Inspected, action: str, locator: Locator, view: View, entry: Entry,
                        body: dict[str, Any]) -> None:
        from pytest_mobile_agent.mirror.element import Element

        element = Element(target.screen, entry.ref)
        if action == "tap":
            element.tap()
            self._record_step(lambda r: r.tap(locator))
        elif action == "type":
            text = body.get("text")
            if not isinstance(text, str):
                raise errors.InvalidArgument("type needs a text")
            element.type_text(text)
            self._record_step(lambda r: r.type_text(locator, text))
        else:
            self._record_step(lambda r: r.assert_text(locator, entry.node.text))

    def _record_step(self, step: Callable[[Recording], None]) -> None:
        if self.recording is not None:
            step(self.recording)

    def _recording_state(self) -> dict[str, Any] | None:
        if self.recording is None:
            return None
        return {"steps": len(self.recording.steps), "source": self.recording.source()}

    def _source(self) -> str:
        recording = self.recording or self.last_recording
        return recording.source() if recording is not None else ""


# --- serving -----------------------------------------------------------------------------------------


@contextlib.contextmanager
def serving(inspector: Inspector, port: int = 0) -> Iterator[str]:
    """Serve the inspector on 127.0.0.1:`port` (0: a free one) in a thread; yields the page's URL."""
    loop = asyncio.new_event_loop()
    runner = web.AppRunner(inspector.app(), handle_signals=False, access_log=None)
    loop.run_until_complete(runner.setup())
    site = web.TCPSite(runner, HOST, port, reuse_address=False)
    loop.run_until_complete(site.start())
    bound = runner.addresses[0][1]
    thread = threading.Thread(target=loop.run_forever, name="mobile-agent-inspector-http", daemon=True)
    thread.start()
    try:
        yield f"http://{HOST}:{bound}/?token={inspector.token}"
    finally:
        asyncio.run_coroutine_threadsafe(runner.cleanup(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        loop.close()


def page_html(token: str) -> str:
    """The page, with its script and styles inline (one request, and it carries the token)."""
    static = resources.files("pytest_mobile_agent.cli.inspector") / "static"
    html = (static / "index.html").read_text(encoding="utf-8")
    return (html.replace("/*STYLE*/", (static / "inspector.css").read_text(encoding="utf-8"))
                .replace("/*SCRIPT*/", (static / "inspector.js").read_text(encoding="utf-8"))
                .replace("<!--ICON-->", favicon.LINK)
                .replace("__TOKEN__", json.dumps(token)))


async def _favicon(request: web.Request) -> web.Response:
    return web.Response(body=favicon.favicon(), content_type=favicon.CONTENT_TYPE,
                        headers={"Cache-Control": "max-age=86400"})


@web.middleware
async def _errors_as_json(
    request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
) -> web.StreamResponse:
    try:
        return await handler(request)
    except web.HTTPException:
        raise
    except (errors.InvalidArgument, errors.InvalidSelector, ValueError) as exc:
        return web.json_response({"error": str(exc)}, status=400)
    except errors.MobileAgentError as exc:
        return web.json_response({"error": str(exc)}, status=409)


async def _json_body(request: web.Request) -> dict[str, Any]:
    try:
        body = await request.json()
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise errors.InvalidArgument("the request's body is not JSON") from None
    if not isinstance(body, dict):
        raise errors.InvalidArgument("the request's body is a JSON object")
    return body


def _int(body: dict[str, Any], name: str, what: str = "a number of pixels") -> int:
    value = body.get(name)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value or abs(value) > 1e6:
        raise errors.InvalidArgument(f"{name} is {what}, not {value!r}")
    return int(value)


def _entry_for(view: View, query: Any) -> Entry | None:
    if "ref" in query:
        try:
            return view.entry(int(query["ref"]))
        except ValueError:
            raise errors.InvalidArgument(f"ref is a number, not {query['ref']!r}") from None
    try:
        x, y = float(query["x"]), float(query["y"])
    except (KeyError, ValueError):
        raise errors.InvalidArgument("an element is asked for by ref=N, or by x= and y= in pixels") from None
    return element_at(view, x, y)


def _screen_image(target: Inspected) -> tuple[bytes, str]:
    frames = target.screen.backend.frames
    kept = frames.frames() if getattr(frames, "live", False) else []
    if kept:
        return frames.jpeg(kept[-1], quality=80), "image/jpeg"
    shot = target.screen.screenshot(format="png")
    return shot.data, "image/png"


def _app_name(target: Inspected) -> str | None:
    if target.app is None:
        return None
    return target.app.package or (target.app.apk_path.name if target.app.apk_path else None)


def _start_app(target: Inspected) -> None:
    if target.app is None:
        raise errors.InvalidArgument("no app under test: start the inspector with --app-apk or --app-package")
    installed = target.app.ensure(target.device)
    AppUnderTest(target.device, installed.package, installed.activity).start()
    target.screen.settle(timeout=3.0)


def _start_fixture(target: Inspected, tab: str) -> None:
    AppUnderTest(target.device, target.fixture_package, target.fixture_activity).start(extras={"tab": tab})
    target.screen.settle(timeout=3.0)
