"""The protocol server of the agent double (the Java agent's `server/` and `core/Agent`): one
running agent's connections, handshake, replacement, requests, events and pings, as
docs/protocol.md says and as the Java agent does. It knows nothing of processes (`process.py`
wires it to one); the methods live beside it as in the Java agent: `tree.py` (snapshot, bounds,
the cache), `input.py` (taps, swipes, keys), `text.py`, `screenshot.py`, `clipboard.py`.
"""

from __future__ import annotations

import contextlib
import hmac
import logging
import re
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import xxhash

from pytest_mobile_agent import errors
from pytest_mobile_agent.agent import protocol as wire  # the one frame codec of protocol 1
from pytest_mobile_agent.virtual.agent.clipboard import ClipboardAccess
from pytest_mobile_agent.virtual.agent.idle import IdleTracker
from pytest_mobile_agent.virtual.agent.ime import ImeEnter
from pytest_mobile_agent.virtual.agent.input import Gestures, Injector
from pytest_mobile_agent.virtual.agent.params import RequestError
from pytest_mobile_agent.virtual.agent.platform import Platform
from pytest_mobile_agent.virtual.agent.screenshot import screenshot
from pytest_mobile_agent.virtual.agent.text import TextEntry
from pytest_mobile_agent.virtual.agent.toasts import ToastBuffer
from pytest_mobile_agent.virtual.agent.tree import Tree, serialize
from pytest_mobile_agent.virtual.agent.workers import BUSY_MESSAGE, Workers
from pytest_mobile_agent.virtual.ui.changes import Change, NodesChanged

log = logging.getLogger("pytest_mobile_agent.virtual")

AGENT_NAME = "mobile-agent-android"
PROTOCOLS = (1,)
ROOT_UID = 0
CAPABILITIES = ("events", "bounds", "window_metadata", "text_clipboard", "multi_touch", "a11y_fields")
SHELL_UID = 2000
VERSION_PATTERN = re.compile(rb"mobile-agent-android ([0-9A-Za-z][0-9A-Za-z.+-]*)")

PING_AFTER_S = 1.0
HANDSHAKE_TIMEOUT_S = 5.0  # for auth after connecting, and for welcome after the hello
SILENT_HOST_S = 3.0  # a welcomed connection that sends nothing this long is closed


class _Close(Exception):
    """End this connection (after sending `closing` with `reason` when it is set)."""

    def __init__(self, reason: str | None) -> None:
        super().__init__(reason)
        self.reason = reason


# --- identity -------------------------------------------------------------------------------------


def build_of(data: bytes) -> str:
    """The first 12 hex digits of the XXH3-64 digest (seed 0) of the file the agent started from."""
    return xxhash.xxh3_64(data).hexdigest()[:12]


def version_in(data: bytes) -> str | None:
    """The version in the ASCII string `mobile-agent-android <VERSION>` inside the agent's code."""
    match = VERSION_PATTERN.search(data)
    return match.group(1).decode("ascii") if match else None


@dataclass(frozen=True)
class Identity:
    version: str
    build: str
    pid: int
    socket: str
    token: str = field(repr=False)
    #: the uid the agent runs as, which a peer must have unless it is root: 2000 when the shell
    #: started it (under `adb root` the host starts it with `su 2000`), 0 when root started it.
    #: Root peers always reach the token check: under `adb root` adbd runs as root
    #: (packages/modules/adb, daemon/main.cpp, should_drop_privileges)
    uid: int = SHELL_UID

    def hello(self) -> dict[str, Any]:
        return {"type": "hello", "agent": AGENT_NAME, "version": self.version, "build": self.build,
                "protocols": list(PROTOCOLS), "capabilities": list(CAPABILITIES), "pid": self.pid,
                "socket": self.socket}


# --- one connection -------------------------------------------------------------------------------


class Connection:
    """One host connection: its stream, its frame decoder, its event sequence."""

    def __init__(self, core: AgentCore, stream: Any, peer_uid: int) -> None:
        self.core = core
        self.stream = stream
        self.peer_uid = peer_uid
        self.decoder = wire.FrameDecoder()
        self.send_lock = threading.Lock()
        self._close_lock = threading.Lock()
        self.closed = False
        self.welcomed = False
        self.seq = 0
        self.last_sent = time.monotonic()
        self.last_received = time.monotonic()
        self.next_nonce = 1
        self._pending: deque[dict[str, Any]] = deque()

    def send(self, message: dict[str, Any]) -> bool:
        """Send one frame; False when the stream is gone (the connection is then closed). Every
        message here is JSON's own types (the double's values, and what it decoded from the host):
        `encode_plain` writes it as `encode` would, at a tenth of the cost (a 5,000-node snapshot)."""
        frame = wire.encode_plain(message)
        gate = self.core.gate
        with self.send_lock:
            gate.pause()
            if self.closed:
                return False
            try:
                self.stream.send(frame, waiter=gate)
            except (errors.MobileAgentError, OSError):
                self._close_stream()
                return False
            self.last_sent = time.monotonic()
            return True

    def close(self, reason: str | None = None) -> None:
        """Close the stream (after a `closing` frame when `reason` is set). Not under the send
        lock: a send blocked on a host that stopped reading must not keep the stream open."""
        if reason is not None and not self.closed:
            self.send({"type": "closing", "reason": reason})
        self._close_stream()

    def _close_stream(self) -> None:
        with self._close_lock:
            if self.closed:
                return
            self.closed = True
        with contextlib.suppress(Exception):  # closing a dead stream
            self.stream.close()

    def read(self, deadline: float | None) -> dict[str, Any] | None:
        """The next message; None at the end of the stream, or when a welcomed host has been
        silent for 3 s (it is gone). ProtocolError on bad bytes; errors.Timeout at `deadline`."""
        while not self._pending:
            if self.closed or self.core.stopped:
                return None
            timeout = 0.25 if deadline is None else max(0.0, min(0.25, deadline - time.monotonic()))
            try:
                data = self.stream.recv(timeout, waiter=self.core.gate)
            except errors.Timeout:
                if deadline is not None and time.monotonic() >= deadline:
                    raise
                if self.welcomed and time.monotonic() - self.last_received >= SILENT_HOST_S:
                    return None
                continue
            except (errors.MobileAgentError, OSError):
                return None
            if not data:
                return None
            self.last_received = time.monotonic()
            for message in self.decoder.feed(data):
                wire.validate(message)
                self._pending.append(message)
        return self._pending.popleft()


# --- the core -------------------------------------------------------------------------------------


class AgentCore:
    """The protocol server of one agent process."""

    def __init__(self, identity: Identity, platform: Platform) -> None:
        self.identity = identity
        self.platform = platform
        self.ui = platform.ui
        self.gate = platform.gate
        self.current: Connection | None = None
        self.stopped = False
        self.exit_status: int | None = None
        self.last_disconnect = time.monotonic()
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._done = threading.Event()
        self._changes: deque[Change] = deque()
        self._event_lock = threading.Lock()
        self.idle = IdleTracker(self.ui, self.gate)
        self.tree = Tree(self.ui, self.gate, self.idle, self._report)
        injector = Injector(self.ui, self.gate, self.idle, self.tree)
        self.gestures = Gestures(injector)
        self.text_entry = TextEntry(injector)
        self.ime = ImeEnter(injector)
        self.toasts = ToastBuffer(self.ui.toasts, self.ui.now_ms)
        self.text_entry.agent_uid = identity.uid
        self.text_entry.toasts = self.toasts
        self.clipboard = ClipboardAccess(injector, self.toasts, identity.uid)
        self._on_stop: list[Callable[[], None]] = [self.toasts.close]
        self.workers = Workers(f"agent-req:{identity.pid}")
        self.ui.add_listener(self._on_change)
        self._pump = threading.Thread(target=self._pump_loop, name=f"agent-events:{identity.pid}", daemon=True)
        self._pump.start()
        self._pinger = threading.Thread(target=self._ping_loop, name=f"agent-pings:{identity.pid}", daemon=True)
        self._pinger.start()

    # --- lifecycle ------------------------------------------------------------------------------

    @property
    def connected(self) -> bool:
        current = self.current
        return current is not None and not current.closed

    def on_stop(self, callback: Callable[[], None]) -> None:
        """Run `callback` when the core stops (the process closes its listener there, which wakes
        its accept loop at once)."""
        with self._lock:
            if not self.stopped:
                self._on_stop.append(callback)
                return
        callback()

    def stop(self, status: int = 0, reason: str | None = None) -> None:
        """Stop serving: close every connection (the current one after a `closing` frame with
        `reason` when it is set), stop the threads, wake the accept loop (the process then exits)."""
        with self._lock:
            if self.stopped:
                return
            self.stopped = True
            self.exit_status = status
            current, self.current = self.current, None
            callbacks, self._on_stop = self._on_stop, []
        self.ui.remove_listener(self._on_change)
        self.workers.stop()
        if current is not None:
            current.close(reason)
        for callback in callbacks:
            try:
                callback()
            except Exception:  # noqa: BLE001 - one cleanup's failure must not stop the others
                log.exception("agent %s: stop callback", self.identity.socket)
        self._wake.set()
        self._done.set()

    def wait_done(self, timeout: float) -> bool:
        return self._done.wait(timeout)

    def serve(self, stream: Any, peer_uid: int) -> threading.Thread:
        """Serve one accepted connection on a daemon thread of its own."""
        conn = Connection(self, stream, peer_uid)
        thread = threading.Thread(target=self._run_connection, args=(conn,), daemon=True,
                                  name=f"agent-conn:{self.identity.pid}")
        thread.start()
        return thread

    # --- a connection ---------------------------------------------------------------------------

    def _run_connection(self, conn: Connection) -> None:
        try:
            self._handshake(conn)
            self._serve_requests(conn)
        except _Close as close:
            conn.close(close.reason)
        except errors.ProtocolError as exc:
            log.info("agent %s: protocol error: %s", self.identity.socket, exc)
            conn.close("protocol_error")
        except errors.Timeout:
            conn.close()
        except Exception:
            log.exception("agent %s: connection failed", self.identity.socket)
            conn.close()
        finally:
            conn.close()
            with self._lock:
                if self.current is conn:
                    self.current = None
                    self.last_disconnect = time.monotonic()
            self._wake.set()

    def _handshake(self, conn: Connection) -> None:
        if conn.peer_uid not in (self.identity.uid, ROOT_UID):
            conn.send({"type": "refused", "code": "peer_not_allowed", "message": "peer not allowed"})
            self.platform.diagnostic(f"refused peer uid {conn.peer_uid}")
            raise _Close(None)
        first = conn.read(time.monotonic() + HANDSHAKE_TIMEOUT_S)
        if first is None:
            raise _Close(None)
        if first["type"] != "auth":
            raise errors.ProtocolError(f"a {first['type']} frame before auth")
        if not hmac.compare_digest(str(first["token"]).encode(), self.identity.token.encode()):
            conn.send({"type": "refused", "code": "unauthorized", "message": "unauthorized"})
            raise _Close(None)
        with self._lock:
            if self.stopped:
                raise _Close(None)
            previous, self.current = self.current, conn
        if previous is not None:
            previous.close("replaced")
        conn.send(self.identity.hello())
        answer = conn.read(time.monotonic() + HANDSHAKE_TIMEOUT_S)
        if answer is None:
            raise _Close(None)
        if answer["type"] == "refuse":
            self.platform.logcat("MobileAgent", f"host refused: {answer.get('code')}: {answer.get('message')}")
            conn.close()
            self.stop(0)
            raise _Close(None)
        if answer["type"] != "welcome":
            raise errors.ProtocolError(f"a {answer['type']} frame before welcome")
        if answer["protocol"] not in PROTOCOLS:
            raise errors.ProtocolError(f"a welcome with protocol {answer['protocol']}, not one of {list(PROTOCOLS)}")
        conn.welcomed = True
        self._wake.set()

    def _serve_requests(self, conn: Connection) -> None:
        while True:
            message = conn.read(None)
            if message is None:
                return
            kind = message["type"]
            if kind == "request":
                self._dispatch(conn, message, time.monotonic())
            elif kind == "ping":
                conn.send({"type": "pong", "nonce": message["nonce"]})
            elif kind in ("auth", "welcome", "refuse", "hello"):
                raise errors.ProtocolError(f"a {kind} frame after the handshake")
            # pong and kinds this protocol does not know are ignored (forward compatibility)

    def _dispatch(self, conn: Connection, message: dict[str, Any], read_at: float) -> None:
        """`shutdown` on the reader, as the Java agent's server/Connection.java serves it; any other
        method on a worker, or `busy` at once when all 8 are taken (virtual/agent/workers.py). A
        `deadline_ms` that is no integer in 0..2^63-1 is `invalid_params`, answered at once."""
        problem = wire.deadline_problem(message["deadline_ms"])
        if problem is not None:
            conn.send({"type": "response", "id": message["id"],
                       "error": {"code": "invalid_params", "message": problem, "retryable": False}})
            return
        if message["method"] == "shutdown":
            self._answer(conn, message, read_at)
            return
        if not self.workers.offer(lambda: self._answer(conn, message, read_at)):
            conn.send({"type": "response", "id": message["id"],
                       "error": {"code": "busy", "message": BUSY_MESSAGE, "retryable": True}})

    def _answer(self, conn: Connection, message: dict[str, Any], read_at: float) -> None:
        request_id = message["id"]
        deadline = read_at + max(0, message["deadline_ms"]) / 1000.0
        method = message["method"]
        after: Callable[[], None] | None = None
        try:
            self.gate.pause()
            handler = self._methods().get(method)
            if handler is None:
                raise RequestError("unknown_method", f"unknown method {method!r}")
            params = message["params"]
            result, after = handler(params, deadline, conn)
            if time.monotonic() > deadline:
                raise RequestError("deadline_exceeded", f"{method} did not finish within {message['deadline_ms']} ms",
                                   retryable=True)
            conn.send({"type": "response", "id": request_id, "result": result})
        except RequestError as exc:
            conn.send({"type": "response", "id": request_id,
                       "error": {"code": exc.code, "message": exc.message, "retryable": exc.retryable}})
        except Exception as exc:  # the agent answers every request exactly once
            if isinstance(exc, errors.Closed) and self.stopped:
                return  # the process ended under the request: nobody is left to answer
            log.exception("agent %s: %s failed", self.identity.socket, method)
            conn.send({"type": "response", "id": request_id,
                       "error": {"code": "internal", "message": f"{type(exc).__name__}: {exc}", "retryable": False}})
        if after is not None:
            after()

    Handler = Callable[[dict[str, Any], float, Connection], tuple[dict[str, Any], Callable[[], None] | None]]

    def _methods(self) -> dict[str, AgentCore.Handler]:
        def plain(method: Callable[[dict[str, Any], float], dict[str, Any]]) -> AgentCore.Handler:
            return lambda params, deadline, conn: (method(params, deadline), None)

        return {"snapshot": plain(self._snapshot), "bounds": plain(lambda p, d: self.tree.bounds(p)),
                "tap": plain(self.gestures.tap), "swipe": plain(self.gestures.swipe),
                "gesture": plain(self.gestures.gesture),
                "key": plain(self.gestures.key), "text": plain(self.text_entry.text),
                "screenshot": plain(lambda p, d: screenshot(self.ui, self.platform, p)),
                "resync": plain(self._resync), "toasts": plain(self.toasts.answer), "shutdown": self._shutdown,
                "clipboard_get": plain(self.clipboard.get), "clipboard_set": plain(self.clipboard.set),
                "ime_enter": plain(self.ime.ime_enter)}

    # --- events and liveness --------------------------------------------------------------------

    def _on_change(self, change: Change) -> None:
        """The UI model's notice (its lock held): invalidate the cache, queue the event."""
        if isinstance(change, NodesChanged) and not change.sends_change_events:
            return  # Compose: no accessibility event, so the agent learns nothing
        self.tree.on_change(change)
        self.idle.note_activity()
        self._report(change)

    def _report(self, change: Change) -> None:
        """Queue a change notice for the event stream."""
        self._changes.append(change)
        self._wake.set()

    def flush_events(self) -> int:
        """Send the queued change notices as events; the seq of the last event sent."""
        with self._event_lock:
            conn = self.current
            while self._changes:
                change = self._changes.popleft()
                if conn is None or not conn.welcomed or conn.closed:
                    continue
                if isinstance(change, NodesChanged):
                    data: dict[str, Any] = {"window": change.window, "nodes": list(change.nodes),
                                            "kinds": list(change.kinds)}
                    name = "window_changed"
                else:
                    data, name = {"windows": list(change.windows)}, "windows_changed"
                conn.seq += 1
                conn.send({"type": "event", "seq": conn.seq, "name": name, "data": data})
            return conn.seq if conn is not None else 0

    def _pump_loop(self) -> None:
        """Events as they happen and the model's timers when due."""
        while not self.stopped:
            self.gate.pause()
            self._wake.clear()
            try:
                self.ui.advance()
                self.flush_events()
            except Exception:
                log.exception("agent %s: event pump", self.identity.socket)
            due = (self.ui.next_due_ms() - self.ui.now_ms()) / 1000.0
            self._wake.wait(max(0.005, min(due, 1.0)))

    def _ping_loop(self) -> None:
        """A ping after 1 s of silence, on a thread of its own as the Java agent's Server schedules its
        tick (server/Server.java, tickOnce): the app's UI thread, busy or stalled, never holds it up."""
        while not self.stopped:
            self.gate.pause()
            conn = self.current
            wait = PING_AFTER_S
            if conn is not None and conn.welcomed and not conn.closed:
                quiet = time.monotonic() - conn.last_sent
                if quiet >= PING_AFTER_S:
                    self._ping(conn)
                else:
                    wait = PING_AFTER_S - quiet
            self._done.wait(max(0.005, wait))

    def _ping(self, conn: Connection) -> None:
        try:
            conn.send({"type": "ping", "nonce": conn.next_nonce})
            conn.next_nonce += 1
        except Exception:  # a connection closing meanwhile: its reader reports the end
            log.debug("agent %s: ping not sent", self.identity.socket, exc_info=True)

    # --- snapshot, resync, shutdown -------------------------------------------------------------

    def _snapshot(self, params: dict[str, Any], deadline: float) -> dict[str, Any]:
        p = Tree.snapshot_params(params)
        idle = self.idle.wait(p["idle_timeout_ms"], p["idle_quiet_ms"], deadline)
        seq = self.flush_events()
        reads = self.tree.read_windows(p)
        self.flush_events()  # a change met by the reads goes out before the response, after `seq`
        out, node_count, truncated = serialize(reads, p["max_nodes"], p["max_depth"])
        return {"windows": out, "node_count": node_count, "truncated": truncated, "idle": idle, "seq": seq,
                "display": self.platform.display()}

    def _resync(self, params: dict[str, Any], deadline: float) -> dict[str, Any]:
        self.tree.drop_all()
        return {"seq": self.flush_events()}

    def _shutdown(self, params: dict[str, Any], deadline: float,
                  conn: Connection) -> tuple[dict[str, Any], Callable[[], None]]:
        def after() -> None:
            conn.close("shutdown")
            self.stop(0)

        return {}, after
