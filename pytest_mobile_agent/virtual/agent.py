"""The agent double: `dev.mobileagent.agent.Main` of the virtual device's `app_process`.

It speaks agent protocol 1 exactly as docs/protocol.md says and as the Java agent does, over the
device's abstract socket, and serves snapshots, events, input, screenshots and bounds from the
device's UI model (`virtual/ui`).

Two layers: `AgentCore` is the protocol server of one running agent (connections, handshake,
replacement, requests, events, pings, the node cache) and knows nothing of processes; `main(proc)`
is the process (arguments, token, jar, name, UI automation, the launch output lines, the accept
loop, idle exit) and wires the core to the device.

The node cache behaves as the Java agent's does: a window whose toolkit sends change events is
read again after its events say it changed; a Compose window (no events) is served from the cache
until the host evicts it, the agent's own input empties it, or a resync drops everything, so input
the agent did not inject leaves it stale, as on a device.

A read lets go of the UI model's lock every few dozen nodes, as the real reader's binder calls let
the app run: another snapshot is answered meanwhile, and a screen torn down under the read (a tab
switch) makes the read start again from the window's root and report the change (protocol section 6).

Every thread of the agent (connection readers, request workers, the event pump, gesture playback)
runs through the platform's `Gate`: while the process is stopped (SIGSTOP) none of them reads, sends
or injects anything, as no thread of a stopped process runs; SIGCONT lets them go on.
"""

from __future__ import annotations

import base64
import contextlib
import hmac
import io
import json
import logging
import math
import re
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

import xxhash

from pytest_mobile_agent import errors
from pytest_mobile_agent.agent import protocol as wire  # the one frame codec of protocol 1
from pytest_mobile_agent.virtual.ui import KEY_MAP, UiModel
from pytest_mobile_agent.virtual.ui.changes import Change, NodesChanged
from pytest_mobile_agent.virtual.ui.node import TornDown, TreeRead

log = logging.getLogger("pytest_mobile_agent.virtual")

MAIN_CLASS = "dev.mobileagent.agent.Main"
AGENT_NAME = "mobile-agent-android"
PROTOCOLS = (1,)
CAPABILITIES = ("events", "bounds", "window_metadata", "text_clipboard")
SHELL_UID = 2000
VERSION_PATTERN = re.compile(rb"mobile-agent-android ([0-9A-Za-z][0-9A-Za-z.+-]*)")

PING_AFTER_S = 1.0
HANDSHAKE_TIMEOUT_S = 5.0  # for auth after connecting, and for welcome after the hello
SILENT_HOST_S = 3.0  # a welcomed connection that sends nothing this long is closed
SWIPE_STEP_MS = 8
#: after its own input the agent re-reads event-less windows on every snapshot for this long,
#: since nothing tells it when Compose has finished composing what the input started
OWN_INPUT_SETTLE_MS = 1000.0
#: reads of one window before a snapshot gives up on a window that keeps being torn down (busy)
READ_ATTEMPTS = 4

SNAPSHOT_DEFAULTS = {"idle_timeout_ms": 0, "idle_quiet_ms": 200, "evict": [], "evict_event_less": False,
                     "max_nodes": 5000, "max_depth": 80}


class RequestError(Exception):
    """A request's error response: `code`, `message`, `retryable` (docs/protocol.md section 4)."""

    def __init__(self, code: str, message: str, *, retryable: bool = False) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.retryable = retryable


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

    def hello(self) -> dict[str, Any]:
        return {"type": "hello", "agent": AGENT_NAME, "version": self.version, "build": self.build,
                "protocols": list(PROTOCOLS), "capabilities": list(CAPABILITIES), "pid": self.pid,
                "socket": self.socket}


# --- the platform the core runs on ----------------------------------------------------------------


class Gate(Protocol):
    """How the agent's threads are scheduled: each one passes here before it acts, and blocks
    through it (the device's `Waiter` protocol), so none runs while the process is stopped."""

    def pause(self) -> None:
        """Return once the process may run (at once unless it is stopped)."""
        ...

    def wait(self, cond: threading.Condition, ready: Callable[[], bool], deadline: float | None) -> bool:
        """Wait (`cond`'s lock held) until ready() or the deadline, not running while stopped."""
        ...

    def sleep_until(self, when: float) -> None:
        """Sleep until the monotonic time `when`, and on while the process is stopped."""
        ...


class Running:
    """The gate of a core that is no process's (unit tests, benches): never stopped."""

    def pause(self) -> None:
        return None

    def wait(self, cond: threading.Condition, ready: Callable[[], bool], deadline: float | None) -> bool:
        while not ready():
            remaining = None if deadline is None else deadline - time.monotonic()
            if remaining is not None and remaining <= 0:
                return False
            cond.wait(remaining)
        return True

    def sleep_until(self, when: float) -> None:
        _sleep_until(when)


class ProcessGate:
    """The gate of an agent process of the virtual device: its threads wait while the process is
    stopped (SIGSTOP) and go on at SIGCONT; once it is dead a wait fails with errors.Closed.

    The stop is waited out on the process's own condition, which the kernel notifies at every
    signal it delivers and at the process's death (`Process.deliver`, `ProcessTable.exit`)."""

    def __init__(self, proc: Any) -> None:
        self.proc = proc
        self.lock = proc.kernel.lock

    def pause(self) -> None:
        with self.lock:
            while self.proc.stopped and not self.proc.dead:
                self.proc.cond.wait()

    def wait(self, cond: threading.Condition, ready: Callable[[], bool], deadline: float | None) -> bool:
        proc = self.proc
        with self.lock:
            while True:
                if proc.dead:
                    raise errors.Closed(f"the agent's process {proc.pid} has ended")
                if proc.stopped:
                    proc.cond.wait()
                    continue
                if ready():
                    return True
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    return False
                cond.wait(remaining)

    def sleep_until(self, when: float) -> None:
        self.wait(self.proc.cond, lambda: False, when)


@dataclass
class Platform:
    """What the core needs of the device besides the UI model."""

    ui: UiModel
    #: the display: width, height, density and rotation (0..3)
    display: Callable[[], dict[str, int]]
    #: a `MOBILE_AGENT_LOG` diagnostic on standard output (ignoring a closed stdout)
    diagnostic: Callable[[str], None] = lambda line: None
    #: logcat
    logcat: Callable[[str, str], None] = lambda tag, msg: None
    #: the scheduling of the agent's threads (the process's, so SIGSTOP stops them)
    gate: Gate = field(default_factory=Running)


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
        """Send one frame; False when the stream is gone (the connection is then closed)."""
        frame = wire.encode(message)
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
        self._input_lock = threading.Lock()
        # the node cache, guarded by the UI model's lock
        self._cache: dict[int, TreeRead] = {}
        #: per window, how often its cache was dropped: a read that a drop overtook is not kept
        self._drops: dict[int, int] = {}
        self._last_activity_ms = 0.0  # last accessibility event or own action (monotonic ms)
        self._last_own_input_ms = -math.inf
        self._on_stop: list[Callable[[], None]] = []
        self.ui.add_listener(self._on_change)
        self._pump = threading.Thread(target=self._pump_loop, name=f"agent-events:{identity.pid}", daemon=True)
        self._pump.start()

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
        if conn.peer_uid != SHELL_UID:
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
                read_at = time.monotonic()
                threading.Thread(target=self._answer, args=(conn, message, read_at), daemon=True,
                                 name=f"agent-req:{message['id']}").start()
            elif kind == "ping":
                conn.send({"type": "pong", "nonce": message["nonce"]})
            elif kind in ("auth", "welcome", "refuse", "hello"):
                raise errors.ProtocolError(f"a {kind} frame after the handshake")
            # pong and kinds this protocol does not know are ignored (forward compatibility)

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
            if message["deadline_ms"] < 0:
                raise RequestError("invalid_params", "deadline_ms must be at least 0")
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
        return {"snapshot": self._snapshot, "bounds": self._bounds, "tap": self._tap, "swipe": self._swipe,
                "key": self._key, "text": self._text, "screenshot": self._screenshot, "resync": self._resync,
                "shutdown": self._shutdown}

    # --- events and liveness --------------------------------------------------------------------

    def _on_change(self, change: Change) -> None:
        """The UI model's notice (its lock held): invalidate the cache, queue the event."""
        if isinstance(change, NodesChanged):
            if not change.sends_change_events:
                return  # Compose: no accessibility event, so the agent learns nothing
            self._drop(change.window)
        else:
            present = set(change.windows)
            for wid in [w for w in self._cache if w not in present]:
                self._drop(wid)
            for wid in [w for w in self._drops if w not in present]:
                del self._drops[wid]  # a window gone for good (ids are never reused)
        self._last_activity_ms = time.monotonic() * 1000.0
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
        """Events as they happen, the model's timers when due, and a ping after 1 s of silence."""
        while not self.stopped:
            self.gate.pause()
            self._wake.clear()
            conn = self.current
            try:
                self.ui.advance()
                self.flush_events()
                if conn is not None and conn.welcomed and not conn.closed \
                        and time.monotonic() - conn.last_sent >= PING_AFTER_S:
                    conn.send({"type": "ping", "nonce": conn.next_nonce})
                    conn.next_nonce += 1
            except Exception:
                log.exception("agent %s: event pump", self.identity.socket)
            timeout = PING_AFTER_S
            if conn is not None and conn.welcomed:
                timeout = max(0.0, conn.last_sent + PING_AFTER_S - time.monotonic())
            due = (self.ui.next_due_ms() - self.ui.now_ms()) / 1000.0
            self._wake.wait(max(0.005, min(timeout, due, 1.0)))

    # --- snapshot -------------------------------------------------------------------------------

    def _snapshot(self, params: dict[str, Any], deadline: float, conn: Connection) -> tuple[dict[str, Any], None]:
        p = {**SNAPSHOT_DEFAULTS, **params}
        for key in ("idle_timeout_ms", "idle_quiet_ms", "max_nodes", "max_depth"):
            _int_param(p, key, minimum=0)
        if not isinstance(p["evict"], list) or not all(_is_int(v) for v in p["evict"]):
            raise RequestError("invalid_params", "evict must be a list of window ids")
        if not isinstance(p["evict_event_less"], bool):
            raise RequestError("invalid_params", "evict_event_less must be a boolean")
        idle = self._wait_idle(p["idle_timeout_ms"], p["idle_quiet_ms"], deadline)
        seq = self.flush_events()
        with self.ui.lock:
            windows = self.ui.windows()
            for wid in p["evict"]:
                self._drop(wid)
            if p["evict_event_less"]:
                for w in windows:
                    if not w.sends_change_events:
                        self._drop(w.id)
            reads: list[tuple[dict[str, Any], TreeRead]] = []
            for w in windows:
                read = self._cached_read(w)
                if read is not None:  # None: the window went away during its read
                    reads.append((w.meta(), read))
        self.flush_events()  # a change met by the reads goes out before the response, after `seq`
        out, node_count, truncated = _serialize(reads, p["max_nodes"], p["max_depth"])
        return {"windows": out, "node_count": node_count, "truncated": truncated, "idle": idle, "seq": seq,
                "display": self.platform.display()}, None

    def _cached_read(self, window: Any) -> TreeRead | None:
        """The window's nodes from the cache where it is current, else read now and cached
        (None when the window went away during the read). The model's lock is held."""
        read = self._cache.get(window.id)
        settling = time.monotonic() * 1000.0 < self._last_own_input_ms + OWN_INPUT_SETTLE_MS
        if read is None or (settling and not window.sends_change_events):
            drops = self._drops.get(window.id, 0)
            read = self._read_window(window)  # a Compose window still settling after our input: read it again
            if read is not None and self._drops.get(window.id, 0) == drops:
                self._cache[window.id] = read
        return read

    def _drop(self, window_id: int) -> None:
        """Forget the window's cached nodes (the model's lock is held)."""
        self._cache.pop(window_id, None)
        self._drops[window_id] = self._drops.get(window_id, 0) + 1

    def _read_window(self, window: Any) -> TreeRead | None:
        """Read the window, letting the app run between slices; a read that meets a torn-down
        subtree starts again from the root and is reported as `window_changed` `structure`
        whatever the window's toolkit (protocol section 6). Busy when it keeps being torn down;
        None when the window went away during the read."""
        torn = False
        for _ in range(READ_ATTEMPTS):
            try:
                read = window.read(self._yield_model)
            except TornDown:
                torn = True
                if self.ui.window(window.id) is None:
                    return None
                continue
            if self.ui.window(window.id) is None:
                return None  # removed under the read: its nodes are gone with it, as on a device
            if torn:
                self._changes.append(NodesChanged(window.id, (), ("structure",), window.sends_change_events))
                self._wake.set()
            return read
        raise RequestError("busy", f"window {window.id} kept changing while it was read", retryable=True)

    def _yield_model(self) -> None:
        """Between slices of a read: the model's lock is let go, so the app runs on and other
        requests are served meanwhile, as the real reader's binder calls let them."""
        depth = _release_all(self.ui.lock)
        try:
            self._between_slices()
        finally:
            for _ in range(depth):
                self.ui.lock.acquire()

    def _between_slices(self) -> None:
        """Where a read stands while the model's lock is let go: a stopped agent stops here."""
        self.gate.pause()

    def _wait_idle(self, timeout_ms: int, quiet_ms: int, deadline: float) -> dict[str, Any]:
        start = time.monotonic()
        if timeout_ms <= 0:
            return {"waited_ms": 0, "idle": self._quiet_for(quiet_ms)}
        end = min(start + timeout_ms / 1000.0, deadline - 0.02)
        while True:
            self.ui.advance()
            now = time.monotonic()
            quiet_left = (self._last_activity_ms + quiet_ms) / 1000.0 - now
            if quiet_left <= 0:
                return {"waited_ms": round((now - start) * 1000), "idle": True}
            if now >= end:
                return {"waited_ms": round((now - start) * 1000), "idle": False}
            due = (self.ui.next_due_ms() - self.ui.now_ms()) / 1000.0
            self.gate.sleep_until(now + max(0.001, min(quiet_left, end - now, due)))

    def _quiet_for(self, quiet_ms: int) -> bool:
        return time.monotonic() * 1000.0 - self._last_activity_ms >= quiet_ms

    # --- bounds, resync, shutdown ---------------------------------------------------------------

    def _bounds(self, params: dict[str, Any], deadline: float, conn: Connection) -> tuple[dict[str, Any], None]:
        ids = params.get("ids")
        if not isinstance(ids, list) or not all(_is_int(v) for v in ids):
            raise RequestError("invalid_params", "ids must be a list of node ids")
        wanted = set(ids)
        found: dict[int, list[int]] = {}
        with self.ui.lock:
            for w in self.ui.windows():
                for node in w.nodes():
                    if node.uid in wanted:
                        found[node.uid] = list(node.bounds)
        return {"nodes": [{"id": i, "bounds": found[i]} for i in ids if i in found]}, None

    def _resync(self, params: dict[str, Any], deadline: float, conn: Connection) -> tuple[dict[str, Any], None]:
        with self.ui.lock:
            for wid in list(self._cache):
                self._drop(wid)
        seq = self.flush_events()
        return {"seq": seq}, None

    def _shutdown(self, params: dict[str, Any], deadline: float, conn: Connection) -> tuple[dict[str, Any], Callable[[], None]]:
        def after() -> None:
            conn.close("shutdown")
            self.stop(0)

        return {}, after

    # --- input ----------------------------------------------------------------------------------

    @contextlib.contextmanager
    def _injecting(self) -> Iterator[None]:
        """One action at a time (two gestures would interleave their touches), and none while
        the process is stopped."""
        with self._input_lock:
            self.gate.pause()
            yield

    def _own_input(self) -> None:
        """After injecting: the idle wait starts again, and event-less windows are read anew."""
        with self.ui.lock:
            now = time.monotonic() * 1000.0
            self._last_activity_ms = now
            self._last_own_input_ms = now
            for w in self.ui.windows():
                if not w.sends_change_events:
                    self._drop(w.id)

    def _tap(self, params: dict[str, Any], deadline: float, conn: Connection) -> tuple[dict[str, Any], None]:
        x, y = _int_param(params, "x"), _int_param(params, "y")
        hold = _int_param(params, "hold_ms", minimum=0, default=0)
        if time.monotonic() + hold / 1000.0 > deadline:
            raise RequestError("deadline_exceeded", f"a {hold} ms press does not fit the deadline", retryable=True)
        with self._injecting():
            t0 = self.ui.now_ms()
            self.ui.touch(x, y, True, t0)
            if hold > 0:
                self.gate.sleep_until(time.monotonic() + hold / 1000.0)
            self.ui.touch(x, y, False, t0 + hold if hold > 0 else None)
            self._own_input()
        return {"accepted": True}, None

    def _swipe(self, params: dict[str, Any], deadline: float, conn: Connection) -> tuple[dict[str, Any], None]:
        x1, y1 = _int_param(params, "x1"), _int_param(params, "y1")
        x2, y2 = _int_param(params, "x2"), _int_param(params, "y2")
        duration = _int_param(params, "duration_ms", minimum=0, default=300)
        rest = _int_param(params, "rest_ms", minimum=0, default=0)
        if time.monotonic() + (duration + rest) / 1000.0 > deadline:
            raise RequestError("deadline_exceeded", f"a {duration + rest} ms swipe does not fit the deadline",
                               retryable=True)
        steps = max(1, math.ceil(duration / SWIPE_STEP_MS))
        moves = 0
        with self._injecting():
            start = time.monotonic()
            t0 = self.ui.now_ms()
            self.ui.touch(x1, y1, True, t0)
            x, y = x1, y1
            for i in range(1, steps + 1):
                f = i / steps
                x, y = round(x1 + (x2 - x1) * f), round(y1 + (y2 - y1) * f)
                at = min(i * SWIPE_STEP_MS, duration)
                self.gate.sleep_until(start + at / 1000.0)
                self.ui.touch(x, y, True, t0 + at)
                moves += 1
            end_ms = duration
            if rest > 0:
                self.gate.sleep_until(start + (duration + rest) / 1000.0)
                end_ms = duration + rest
                x, y = _one_pixel_on(x1, y1, x2, y2)
                self.ui.touch(x, y, True, t0 + end_ms)
                moves += 1
            self.ui.touch(x, y, False, t0 + end_ms)
            self._own_input()
        return {"accepted": True, "moves": moves}, None

    def _key(self, params: dict[str, Any], deadline: float, conn: Connection) -> tuple[dict[str, Any], None]:
        code = _int_param(params, "code", minimum=0)
        meta = _int_param(params, "meta", minimum=0, default=0)
        with self._injecting():
            accepted = self.ui.key(code, meta)
            self._own_input()
        return {"accepted": accepted}, None

    def _text(self, params: dict[str, Any], deadline: float, conn: Connection) -> tuple[dict[str, Any], None]:
        text = params.get("text")
        if not isinstance(text, str):
            raise RequestError("invalid_params", "text must be a string")
        method = params.get("method", "auto")
        if method not in ("auto", "direct", "keys", "clipboard"):
            raise RequestError("invalid_params", f"unknown text method {method!r}")
        node_id = params.get("node")
        if node_id is not None and not _is_int(node_id):
            raise RequestError("invalid_params", "node must be a node id or null")
        with self._injecting(), self.ui.lock:
            node = self._text_target(node_id)
            used = method
            if method == "auto":
                if node.accepts_set_text:
                    used = "direct"
                elif all(ch in KEY_MAP for ch in text):
                    used = "keys"
                else:
                    used = "clipboard"
            if used == "direct":
                if not self.ui.set_text(node, text):
                    raise RequestError("invalid_params", f"node {node.uid} does not accept text set directly")
                self._own_input()
                return {"accepted": True, "method": used}, None
            if not node.focused:
                self.ui.focus(node)  # keys and pastes go where the focus is, at its cursor
            if used == "keys":
                missing = sorted({ch for ch in text if ch not in KEY_MAP})
                if missing:
                    raise RequestError("invalid_params", f"no key map types {''.join(missing)!r}")
                for ch in text:
                    self.ui.key(*KEY_MAP[ch])
            else:
                saved = self.ui.clipboard
                self.ui.clipboard = text
                pasted = self.ui.paste(node)
                self.ui.clipboard = saved
                if not pasted:
                    raise RequestError("invalid_params", f"node {node.uid} does not accept a paste")
            self._own_input()
        return {"accepted": True, "method": used}, None

    def _text_target(self, node_id: int | None) -> Any:
        if node_id is None:
            node = self.ui.focused
            if node is None:
                raise RequestError("invalid_params", "no node has the input focus")
        else:
            located = self.ui.find(node_id)
            if located is None:
                raise RequestError("not_found", f"node {node_id} is not known")
            node = located[1]
        if not node.editable:
            raise RequestError("invalid_params", f"node {node.uid} is not editable")
        return node

    # --- screenshot -----------------------------------------------------------------------------

    def _screenshot(self, params: dict[str, Any], deadline: float, conn: Connection) -> tuple[dict[str, Any], None]:
        fmt = params.get("format", "png")
        if fmt not in ("png", "jpeg"):
            raise RequestError("invalid_params", f"unknown screenshot format {fmt!r}")
        quality = _int_param(params, "quality", minimum=1, default=80)
        if quality > 100:
            raise RequestError("invalid_params", "quality must be 1..100")
        try:
            image = self.ui.render()
            buffer = io.BytesIO()
            if fmt == "png":
                image.save(buffer, format="PNG", compress_level=1)
            else:
                image.save(buffer, format="JPEG", quality=quality)
        except Exception as exc:
            raise RequestError("screenshot_failed", f"the capture failed: {exc}") from None
        display = self.platform.display()
        return {"format": fmt, "width": image.width, "height": image.height, "rotation": display.get("rotation", 0),
                "data": base64.b64encode(buffer.getvalue()).decode("ascii")}, None


# --- serialization --------------------------------------------------------------------------------


def _serialize(reads: list[tuple[dict[str, Any], TreeRead]], max_nodes: int,
               max_depth: int) -> tuple[list[dict[str, Any]], int, bool]:
    """The WINDOW dicts with the caps applied; the full node count; whether anything was cut."""
    out: list[dict[str, Any]] = []
    node_count = 0
    budget = max_nodes
    truncated = False
    for meta, read in reads:
        count = len(read.nodes)
        node_count += count
        if count <= budget and (not read.depths or max(read.depths) <= max_depth):
            nodes = read.nodes
        else:
            nodes = _capped(read, budget, max_depth)
            truncated = True
        budget -= len(nodes)
        meta["node_count"] = count
        meta["nodes"] = nodes
        out.append(meta)
    return out, node_count, truncated


def _capped(read: TreeRead, budget: int, max_depth: int) -> list[dict[str, Any]]:
    """Pre-order nodes within the depth cap, at most `budget`; children lists keep only the nodes
    serialized, so every id a node names is in the snapshot."""
    kept: list[dict[str, Any]] = []
    ids: set[int] = set()
    for node, depth in zip(read.nodes, read.depths, strict=True):
        if len(kept) >= budget:
            break
        if depth > max_depth or (node["parent"] is not None and node["parent"] not in ids):
            continue
        kept.append(node)
        ids.add(node["id"])
    return [dict(n, children=[c for c in n["children"] if c in ids]) for n in kept]


# --- params ---------------------------------------------------------------------------------------


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _int_param(params: dict[str, Any], key: str, *, minimum: int | None = None, default: int | None = None) -> int:
    value = params.get(key, default)
    if value is None or not _is_int(value):
        raise RequestError("invalid_params", f"{key} must be an integer")
    if minimum is not None and value < minimum:
        raise RequestError("invalid_params", f"{key} must be at least {minimum}")
    params[key] = value
    return int(value)


def _release_all(lock: Any) -> int:
    """Release an RLock this thread holds, however deep; how many times it was held."""
    depth = 0
    while True:
        try:
            lock.release()
        except RuntimeError:  # not held (any more) by this thread
            return depth
        depth += 1


def _sleep_until(when: float) -> None:
    remaining = when - time.monotonic()
    if remaining > 0:
        time.sleep(remaining)


def _one_pixel_on(x1: int, y1: int, x2: int, y2: int) -> tuple[int, int]:
    """One pixel past the end of the line, in the swipe's direction."""
    dx, dy = x2 - x1, y2 - y1
    if abs(dy) >= abs(dx):
        return x2, y2 + (1 if dy >= 0 else -1)
    return x2 + (1 if dx >= 0 else -1), y2


# --- the launch output lines ----------------------------------------------------------------------


def ready_line(identity: Identity, stopped: list[dict[str, Any]]) -> str:
    payload = {"pid": identity.pid, "socket": identity.socket, "version": identity.version, "build": identity.build,
               "protocols": list(PROTOCOLS), "stopped": stopped}
    return "MOBILE_AGENT_READY " + json.dumps(payload, separators=(",", ":")) + "\n"


def conflict_line(holder: dict[str, Any] | None, message: str) -> str:
    return "MOBILE_AGENT_CONFLICT " + json.dumps({"holder": holder, "message": message}, separators=(",", ":")) + "\n"


def error_line(code: str, message: str) -> str:
    return "MOBILE_AGENT_ERROR " + json.dumps({"code": code, "message": message}, separators=(",", ":")) + "\n"


def already_registered() -> str:
    """The platform's message when UI automation is taken: the device's IllegalStateException's
    message, as the Java agent reports `getMessage()` (the proxy's hash differs each time)."""
    try:
        from pytest_mobile_agent.virtual.automation import already_registered_message
    except ImportError:  # a device model without the slot's module
        return ("UiAutomationService android.accessibilityservice.IAccessibilityServiceClient$Stub$Proxy@"
                f"{secrets.token_hex(4)[1:]} already registered!")
    return already_registered_message().removeprefix("java.lang.IllegalStateException: ")


# --- the process ----------------------------------------------------------------------------------

#: ART blocks SIGQUIT, SIGUSR1, SIGPIPE and signal 32 in every thread (SigBlk on the API 36 emulator)
ART_SIGBLK = 0x80001204
SIGTERM, SIGKILL = 15, 9
FORCE_STOP_WAIT_S = 2.0
ACCEPT_SLICE_S = 0.25
KNOWN_CLIENTS = ("uiautomator", "mobile-agent ")
KNOWN_INSTRUMENTATIONS = ("com.github.uiautomator", "io.appium.uiautomator2")


def _is_automation_client(args_line: str) -> bool:
    """uiautomator, another agent, or an instrumentation server (what `--force` stops)."""
    return args_line.startswith(KNOWN_CLIENTS) or any(name in args_line for name in KNOWN_INSTRUMENTATIONS)


@dataclass(frozen=True)
class Args:
    socket: str
    idle_exit_ms: int
    force: bool


def parse_args(argv: list[str]) -> Args:
    """`app_process / dev.mobileagent.agent.Main serve --socket NAME --idle-exit-ms MS [--force]`."""
    words = argv[argv.index(MAIN_CLASS) + 1:] if MAIN_CLASS in argv else list(argv)
    if not words or words[0] != "serve":
        raise ValueError("usage: serve --socket NAME --idle-exit-ms MS [--force]")
    socket_name: str | None = None
    idle_ms = 0
    force = False
    i = 1
    while i < len(words):
        word = words[i]
        if word == "--force":
            force = True
        elif word in ("--socket", "--idle-exit-ms") and i + 1 < len(words):
            i += 1
            if word == "--socket":
                socket_name = words[i]
            else:
                if not words[i].isdigit():
                    raise ValueError(f"--idle-exit-ms takes milliseconds, not {words[i]!r}")
                idle_ms = int(words[i])
        else:
            raise ValueError(f"unknown argument {word!r}")
        i += 1
    if not socket_name:
        raise ValueError("--socket NAME is required")
    return Args(socket_name, idle_ms, force)


class _Stdout:
    """The agent's standard output: lines, with EPIPE on a closed stream ignored."""

    def __init__(self, proc: Any) -> None:
        self.proc = proc

    def line(self, text: str) -> None:
        # EPIPE: the launch stream is gone; the agent keeps serving
        with contextlib.suppress(BrokenPipeError, OSError, errors.MobileAgentError):
            self.proc.stdout.write(text.encode())


def main(proc: Any, argv: list[str] | None = None) -> int:
    """The agent double as a program of the virtual device's `app_process` (`argv`: the words
    after the main class, or the whole command line)."""
    out = _Stdout(proc)
    device = proc.device
    signals = getattr(proc, "signals", None)
    if signals is not None and hasattr(signals, "block"):
        signals.block(ART_SIGBLK)
    try:
        args = parse_args(list(proc.argv if argv is None else argv))
    except ValueError as exc:
        out.line(error_line("usage", str(exc)))
        return 1
    token = proc.env.get("MOBILE_AGENT_TOKEN", "")
    if not token:
        out.line(error_line("no_token", "MOBILE_AGENT_TOKEN is not set"))
        return 1
    identity_or_error = _identity(proc, device, args, token)
    if isinstance(identity_or_error, str):
        out.line(identity_or_error)
        return 1
    identity = identity_or_error
    proc.set_name(f"mobile-agent {args.socket}")
    stopped = _take_automation(proc, device, args, out)
    if stopped is None:
        return 3
    try:
        listener = device.sockets.listen_abstract(args.socket, proc.pid)
    except Exception as exc:  # noqa: BLE001 - the name is taken, or the device refuses it
        device.automation.release(proc.pid)
        out.line(error_line("socket", f"cannot listen on @{args.socket}: {exc}"))
        return 1
    ui = ui_of(device)
    platform = Platform(ui, lambda: display_info(device, ui),
                        diagnostic=lambda msg: out.line(f"MOBILE_AGENT_LOG {msg}\n"),
                        logcat=getattr(device, "log", lambda tag, msg: None),
                        gate=ProcessGate(proc))
    core = AgentCore(identity, platform)
    core.on_stop(lambda: _close_quietly(listener))  # wakes the accept loop: the process exits at once

    def on_death() -> None:  # however the process ends, SIGKILL included
        core.stop(core.exit_status or 0)
        _close_quietly(listener)
        device.automation.release(proc.pid)

    proc.at_death(on_death)
    core.last_disconnect = time.monotonic()
    out.line(ready_line(identity, stopped))
    platform.logcat("MobileAgent", f"serving @{args.socket} ({identity.version}, build {identity.build})")
    try:
        _accept_loop(proc, core, listener, args.idle_exit_ms)
    finally:
        core.stop(core.exit_status or 0)
        _close_quietly(listener)
        device.automation.release(proc.pid)
    return core.exit_status or 0


def _identity(proc: Any, device: Any, args: Args, token: str) -> Identity | str:
    """The agent's identity from the file it started from; an error line when it cannot be read."""
    classpath = proc.env.get("CLASSPATH", "").split(":")[0]
    if not classpath:
        return error_line("classpath", "CLASSPATH names no file")
    try:
        data = read_device_file(device, classpath, proc)
    except OSError as exc:
        return error_line("classpath", f"cannot read {classpath}: {exc.strerror or exc}")
    version = version_in(data)
    if version is None:
        return error_line("classpath", f"{classpath} holds no {AGENT_NAME} (ClassNotFoundException: {MAIN_CLASS})")
    return Identity(version, build_of(data), proc.pid, args.socket, token)


def read_device_file(device: Any, path: str, proc: Any) -> bytes:
    from pytest_mobile_agent.virtual.fs import Cred

    data: bytes = device.fs.read_file(path, Cred(proc.uid, pid=proc.pid))
    return data


def _holder_of(proc: Any, pid: int | None, label: str) -> dict[str, Any]:
    other = proc.table.get(pid) if pid is not None else None
    name = other.args_line() if other is not None and not other.dead else label
    return {"pid": pid, "name": name}


def _take_automation(proc: Any, device: Any, args: Args, out: _Stdout) -> list[dict[str, Any]] | None:
    """UI automation for this agent: the clients `--force` stopped, or None after a conflict line."""
    automation = device.automation
    stopped: list[dict[str, Any]] = []
    held = automation.holder()
    if held is not None and held[0] != proc.pid:
        holder = _holder_of(proc, held[0], held[1])
        if not args.force:
            out.line(conflict_line(holder, already_registered()))
            return None
        stopped.extend(_force_stop(proc, device, holder))
    if args.force:
        for other in proc.table.processes():
            line = other.args_line()
            if other.pid != proc.pid and not other.dead and _is_automation_client(line) \
                    and all(s["pid"] != other.pid for s in stopped):
                stopped.extend(_force_stop(proc, device, {"pid": other.pid, "name": line}))
    if not automation.acquire(proc.pid, f"mobile-agent {args.socket}"):
        held = automation.holder()
        out.line(conflict_line(_holder_of(proc, held[0], held[1]) if held else None, already_registered()))
        return None
    return stopped


def _force_stop(proc: Any, device: Any, holder: dict[str, Any]) -> list[dict[str, Any]]:
    """SIGTERM, then SIGKILL past a short wait; the holder in the `stopped` list once it is gone."""
    pid = holder["pid"]
    if pid is None:
        return []
    for sig in (SIGTERM, SIGKILL):
        try:
            proc.table.kill(pid, sig, proc.uid)
        except ProcessLookupError:
            return [holder]
        except PermissionError:
            return []
        end = time.monotonic() + FORCE_STOP_WAIT_S
        while time.monotonic() < end:
            other = proc.table.get(pid)
            if other is None or other.dead:
                log.info("agent: stopped automation client %s (%s)", pid, holder["name"])
                return [holder]
            proc.sleep(0.01)
    return []


def _accept_loop(proc: Any, core: AgentCore, listener: Any, idle_exit_ms: int) -> None:
    while not core.stopped:
        if proc.dead:
            return
        if idle_exit_ms > 0 and not core.connected:
            idle_left = core.last_disconnect + idle_exit_ms / 1000.0 - time.monotonic()
            if idle_left <= 0:
                log.info("agent %s: no host for %d ms, exiting", core.identity.socket, idle_exit_ms)
                core.stop(0, "idle")  # a host that authenticated since the check above is told why
                return
            timeout = min(ACCEPT_SLICE_S, idle_left)
        else:
            timeout = ACCEPT_SLICE_S
        try:
            accepted = _accept(listener, timeout, proc)
        except errors.Timeout:
            continue
        except (errors.MobileAgentError, OSError):
            return  # the listener was closed under us: the process is ending
        if accepted is None:
            continue
        stream, peer_uid = accepted
        core.serve(stream, peer_uid)


def _accept(listener: Any, timeout: float, proc: Any) -> tuple[Any, int] | None:
    try:
        result = listener.accept(timeout, waiter=proc)
    except TypeError:
        result = listener.accept(timeout)
    if result is None:
        return None
    stream, peer_uid = result
    return stream, int(peer_uid)


def _close_quietly(obj: Any) -> None:
    with contextlib.suppress(Exception):
        obj.close()


def ui_of(device: Any) -> UiModel:
    """The device's UI model (made and attached on first use)."""
    model = getattr(device, "ui", None)
    if isinstance(model, UiModel):
        return model
    from pytest_mobile_agent.virtual.ui.attach import attach

    return attach(device)


def display_info(device: Any, ui: UiModel) -> dict[str, int]:
    """The `display` of a snapshot: the logical size (turned by the rotation), the density in
    effect and the rotation, as the UI is laid out for them."""
    display = getattr(device, "display", None)
    rotation = getattr(display, "rotation", 0)
    with ui.lock:
        ui.advance()  # lays the UI out again if the display changed
        geo = ui.geo
    return {"width": geo.width, "height": geo.height, "density": geo.density,
            "rotation": int(rotation) % 4 if isinstance(rotation, int) else 0}


def register(device: Any) -> None:
    """Make `app_process / dev.mobileagent.agent.Main ...` run the agent double on `device`."""
    device.app_process_mains[MAIN_CLASS] = main


def install(device: Any) -> UiModel:
    """Everything this module and the UI model add to a device: the agent double as
    `app_process`'s `dev.mobileagent.agent.Main`, and the Compose fixture app's UI (installed with
    the activity manager, shown on the display). The device calls it once, at construction."""
    register(device)
    return ui_of(device)
