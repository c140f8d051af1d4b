"""The connection to a running agent: `HostSession` driven over a byte stream on a reader thread.

The stream is the adb service stream `localabstract:<socket>` (an `adb.AdbStream`), or any
socket-like object with `sendall`, `recv`, `settimeout`, `fileno` and `close` (the tests use a
socketpair). The reader thread waits (with `selectors`, so a descriptor past select()'s 1,024 is
watched too) for the stream to be readable or for the session's next timer (a ping, the liveness
bound, a resync backoff), so the socket itself stays in blocking mode with a long io deadline.

Writes go out on a writer thread of their own, in the order the session produced them: a write the
agent does not drain can block for up to the io deadline, and it must never hold the lock the
reader and the callers need (the session's state), or reading, liveness and every other request
would stall with it. On a TCP stream (the adb server's), each read is acknowledged at once
(TCP_QUICKACK): the server's small writes to its client wait for our acknowledgement under
Nagle's algorithm, which Linux delays up to 40 ms, so while events flow every response was 40 ms late.

The thread and lock map is in docs/architecture.md: the session's state lock (`_lock`) is never
taken under the sink lock (`_sink_lock`), and the writer's queue is taken last.
"""

from __future__ import annotations

import contextlib
import logging
import selectors
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from pytest_mobile_agent.agent.protocol import (
    LIVENESS_TIMEOUT,
    Disconnection,
    Established,
    Hello,
    HostEvent,
    HostSession,
    JsonBytes,
    OutOfSync,
    ProtocolEvent,
    Response,
    Resynced,
    State,
)
from pytest_mobile_agent.arguments import check_timeout
from pytest_mobile_agent.errors import (
    AgentError,
    Disconnected,
    MobileAgentError,
    Timeout,
    is_timeout,
)

log = logging.getLogger("pytest_mobile_agent.agent")

IO_TIMEOUT = 10.0  # a write the agent does not drain within this long fails the connection
_READ_SIZE = 256 * 1024
_MAX_WAIT = 0.5  # the reader looks at its close flag at least this often
_MAX_BUFFERED_EVENTS = 100_000

ConnectionEvent = ProtocolEvent | OutOfSync | Resynced | Disconnection


class EventSink(Protocol):
    """Receives every event of the connection that is not a response, in order, on the reader
    thread: it must return quickly and never wait for a response of the same connection (hand the
    event to another thread, as the session's event stream does)."""

    def __call__(self, event: ConnectionEvent) -> None: ...


class ByteStream(Protocol):
    def sendall(self, data: bytes) -> None: ...
    def recv(self, n: int) -> bytes: ...
    def settimeout(self, timeout: float) -> None: ...
    def fileno(self) -> int: ...
    def close(self) -> None: ...


class _Waiter:
    __slots__ = ("done", "value")

    def __init__(self) -> None:
        self.done = threading.Event()
        self.value: Response | Disconnection | None = None

    def settle(self, value: Response | Disconnection) -> None:
        self.value = value
        self.done.set()


def _raw_socket(stream: Any) -> socket.socket | None:
    if isinstance(stream, socket.socket):
        return stream
    raw = getattr(stream, "socket", None)
    return raw if isinstance(raw, socket.socket) else None


class _Writer:
    """Sends queued bytes in order on a thread of its own; `on_failure(exc)` once a write fails."""

    def __init__(self, stream: ByteStream, name: str, on_failure: Callable[[BaseException], None]) -> None:
        self._stream = stream
        self._on_failure = on_failure
        self._queue: deque[bytes] = deque()
        self._cond = threading.Condition()
        self._closed = False
        self._thread = threading.Thread(target=self._run, name=f"agent-writer {name}", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def put(self, data: bytes) -> None:
        with self._cond:
            if not self._closed:
                self._queue.append(data)
                self._cond.notify()

    def close(self, timeout: float) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout)

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._queue and not self._closed:
                    self._cond.wait()
                if not self._queue:
                    return
                data = b"".join(self._queue)
                self._queue.clear()
            try:
                self._stream.sendall(data)
            except (OSError, MobileAgentError) as exc:
                self._on_failure(exc)
                return


class Connection:
    """An authenticated connection to one agent. Use `Connection.open`."""

    def __init__(self, stream: ByteStream, session: HostSession, *, name: str = "agent",
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._stream = stream
        self._session = session
        self._clock = clock
        self.name = name
        self._lock = threading.RLock()  # the session's state (never held across a write)
        self._sink_lock = threading.RLock()  # the sink and the events waiting for it
        self._sink: EventSink | None = None
        self._buffered: list[ConnectionEvent] = []
        self._pending: dict[int, _Waiter] = {}
        self._disconnection: Disconnection | None = None
        self._closed = threading.Event()
        self._closing = False
        self._thread: threading.Thread | None = None
        self._writer: _Writer | None = None
        self._selector: selectors.BaseSelector | None = None
        self._quick_ack = True
        # the events of close(), delivered by the reader after the batch it is delivering
        self._last_events: list[HostEvent] = []
        self._last_events_lock = threading.Lock()

    # --- opening ------------------------------------------------------------------------------

    @classmethod
    def open(cls, stream: ByteStream, token: str, *, timeout: float = 5.0, name: str = "agent",
             clock: Callable[[], float] = time.monotonic, session: HostSession | None = None,
             liveness_timeout: float = LIVENESS_TIMEOUT) -> Connection:
        """Authenticate with `token` and complete the handshake within `timeout`, then start reading.

        `liveness_timeout` is how long a silent agent lives (the seed's 3 s; raise it on a slow host).
        Raises Unauthorized (a wrong token), VersionMismatch (no common protocol: the agent was
        refused and exits), ProtocolError, Disconnected or Timeout; the stream is closed then.
        """
        session = session or HostSession(token=token, liveness_timeout=liveness_timeout)
        conn = cls(stream, session, name=name, clock=clock)
        try:
            conn._handshake(timeout)
        except BaseException:
            conn._release_selector()
            conn._stream_close()
            raise
        conn._writer = _Writer(stream, name, conn._write_failed)
        conn._writer.start()
        conn._thread = threading.Thread(target=conn._read_loop, name=f"agent-reader {name}", daemon=True)
        conn._thread.start()
        return conn

    def _handshake(self, timeout: float) -> None:
        self._stream.settimeout(IO_TIMEOUT)
        deadline = self._clock() + timeout
        session = self._session
        session.start(self._clock())
        self._flush()
        while True:
            for index, event in enumerate(events := session.take_events()):
                if isinstance(event, Established):
                    for early in events[index + 1:]:  # events read with the hello: kept for the sink
                        self._dispatch(early)
                    return
                if isinstance(event, Disconnection):
                    self._flush()  # a refuse with version_mismatch goes out before the close
                    raise session.failure or Disconnected(f"{self.name}: {event.reason}",
                                                          reconnect_hint=event.reconnect_hint)
            now = self._clock()
            if now >= deadline:
                raise Timeout(f"the handshake with {self.name}", timeout)
            wait = min(deadline, session.next_timer()) - now
            if self._wait_readable(wait):
                data = self._recv()
                if data:
                    session.receive(data, self._clock())
                else:
                    session.stream_ended(self._clock())
            else:
                session.tick(self._clock())
            self._flush()

    # --- public API ---------------------------------------------------------------------------

    @property
    def hello(self) -> Hello:
        assert self._session.hello is not None
        return self._session.hello

    @property
    def protocol(self) -> int:
        assert self._session.protocol is not None
        return self._session.protocol

    @property
    def closed(self) -> bool:
        return self._closed.is_set()

    @property
    def disconnection(self) -> Disconnection | None:
        return self._disconnection

    def wait_closed(self, timeout: float) -> bool:
        return self._closed.wait(timeout)

    def request(self, method: str, params: Mapping[str, Any] | None = None, timeout: float = 5.0) -> dict[str, Any]:
        """Send a request and wait for its response until `timeout`; the agent gets the same budget.

        Raises AgentError (the agent's code and message), Timeout, or Disconnected.
        """
        result = self._exchange(method, params, timeout).result
        assert result is not None
        return result

    def request_raw(self, method: str, params: Mapping[str, Any] | None = None, timeout: float = 5.0) -> JsonBytes:
        """As `request`, but the result is the JSON object's bytes as the agent sent them, for a
        typed decoder (a snapshot's nodes, session/tree.py): no dict is made of them."""
        result = self._exchange(method, params, timeout).result_bytes()
        assert result is not None
        return result

    def _exchange(self, method: str, params: Mapping[str, Any] | None, timeout: float) -> Response:
        timeout = check_timeout("timeout", timeout)
        waiter = _Waiter()
        with self._lock:
            self._raise_if_closed(method)
            request_id = self._session.request(method, params or {}, int(timeout * 1000), self._clock())
            self._pending[request_id] = waiter
            self._flush()
        if not waiter.done.wait(timeout):
            with self._lock:
                self._pending.pop(request_id, None)  # a late response is dropped
            raise Timeout(f"the agent request {method} (id {request_id}) on {self.name}", timeout)
        value = waiter.value
        if isinstance(value, Disconnection):
            raise Disconnected(f"{method} on {self.name}: {value.reason}", reconnect_hint=value.reconnect_hint)
        assert isinstance(value, Response)
        if value.error is not None:
            error = value.error
            raise AgentError(error["code"], error["message"], retryable=bool(error["retryable"]), method=method)
        return value

    def set_sink(self, sink: EventSink | None) -> None:
        """Events go to `sink` from now on, in order, on the reader thread. Events that arrived
        before it was set are replayed to it first (on the calling thread)."""
        with self._sink_lock:
            self._sink = sink
            if sink is None:
                return
            buffered, self._buffered = self._buffered, []
            for event in buffered:
                self._deliver(sink, event)

    def close(self) -> None:
        """Close the connection (the agent keeps running, and idles out without a host).

        The Disconnection is delivered after whatever the reader is delivering, on its thread,
        as every other event; only a reader that does not end within 2 s leaves it to the caller."""
        with self._lock:
            self._closing = True
            self._session.close()
            with self._last_events_lock:
                self._last_events.extend(self._session.take_events())
        self._shutdown_socket()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(2.0)
        self._deliver_last_events()
        if self._writer is not None:
            self._writer.close(1.0)
        self._stream_close()

    def __enter__(self) -> Connection:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self.closed else self._session.state.value
        return f"Connection({self.name!r}, {state})"

    # --- the reader thread --------------------------------------------------------------------

    def _read_loop(self) -> None:
        try:
            self._read_until_closed()
        finally:
            self._deliver_last_events()
            self._release_selector()
            self._stream_close()

    def _read_until_closed(self) -> None:
        try:
            while not self._closing:
                with self._lock:
                    wait = self._session.next_timer() - self._clock()
                readable = self._wait_readable(min(wait, _MAX_WAIT))
                if self._closing:
                    break
                data = self._recv() if readable else None
                with self._lock:
                    now = self._clock()
                    if data:
                        self._session.receive(data, now)
                    elif data is not None:
                        self._session.stream_ended(now)
                    self._session.tick(now)
                    self._flush()
                    events = self._session.take_events()
                for event in events:
                    self._dispatch(event)
                if self._session.state is State.CLOSED:
                    break
        except Exception:  # pragma: no cover - a bug; never let the thread die silently
            log.exception("the reader of %s failed", self.name)
            with self._lock:
                self._session.close("the connection's reader failed")
                events = self._session.take_events()
            for event in events:
                self._dispatch(event)

    def _deliver_last_events(self) -> None:
        with self._last_events_lock:
            events, self._last_events = self._last_events, []
        for event in events:
            self._dispatch(event)

    def _wait_readable(self, wait: float) -> bool:
        """Whether the stream is readable within `wait` seconds (epoll or kqueue: no descriptor
        limit, unlike select()); a descriptor that cannot be watched counts as readable, and the
        read then reports the end."""
        try:
            if self._selector is None:
                self._selector = selectors.DefaultSelector()
                self._selector.register(self._stream.fileno(), selectors.EVENT_READ)
            return bool(self._selector.select(max(0.0, wait)))
        except (OSError, ValueError, KeyError, MobileAgentError):
            return True

    def _release_selector(self) -> None:
        selector, self._selector = self._selector, None
        if selector is not None:
            with contextlib.suppress(OSError, ValueError):
                selector.close()

    def _recv(self) -> bytes:
        try:
            data = self._stream.recv(_READ_SIZE)
        except (OSError, MobileAgentError) as exc:
            # readable, yet the read failed (reset, or a timeout no socket in blocking mode gives
            # after the wait): the stream is over either way
            log.debug("%s: the read failed (%s%s)", self.name, exc, ", a timeout" if is_timeout(exc) else "")
            return b""
        if data:
            self._acknowledge_now()
        return data

    def _acknowledge_now(self) -> None:
        """Acknowledge what was read at once (Linux TCP only; it lasts until the kernel's next
        delayed acknowledgement, hence after every read)."""
        if not self._quick_ack:
            return
        raw = _raw_socket(self._stream)
        quick_ack = getattr(socket, "TCP_QUICKACK", None)
        if raw is None or quick_ack is None or raw.family not in (socket.AF_INET, socket.AF_INET6):
            self._quick_ack = False
            return
        try:
            raw.setsockopt(socket.IPPROTO_TCP, quick_ack, 1)
        except OSError:
            self._quick_ack = False

    def _flush(self) -> None:
        """Hand the session's outgoing bytes to the writer (during the handshake, before there is
        one, write them here: nobody else runs yet)."""
        with self._lock:
            data = self._session.take_outgoing()
            if not data or self._closed.is_set():
                return
            writer = self._writer
            if writer is not None:
                writer.put(data)  # under the lock: frames keep the order the session made them in
                return
            try:
                self._stream.sendall(data)
            except (OSError, MobileAgentError) as exc:
                log.debug("%s: a write failed (%s)", self.name, exc)
                self._session.stream_ended(self._clock())

    def _write_failed(self, exc: BaseException) -> None:
        """On the writer thread: the stream is over; the reader, woken, reports it."""
        log.debug("%s: a write failed (%s)", self.name, exc)
        with self._lock:
            self._session.stream_ended(self._clock())
        self._shutdown_socket()

    def _shutdown_socket(self) -> None:
        raw = _raw_socket(self._stream)
        if raw is not None:
            with contextlib.suppress(OSError):
                raw.shutdown(socket.SHUT_RDWR)

    def _dispatch(self, event: HostEvent) -> None:
        if isinstance(event, Established):
            return
        if isinstance(event, Response):
            with self._lock:
                waiter = self._pending.pop(event.id, None)
            if waiter is None:
                log.debug("%s: dropping the response to request %d, which nobody waits for", self.name, event.id)
            else:
                waiter.settle(event)
            return
        if isinstance(event, Disconnection):
            self._disconnected(event)
        self._to_sink(event)

    def _disconnected(self, event: Disconnection) -> None:
        log.info("%s disconnected: %s", self.name, event.reason)
        with self._lock:
            self._disconnection = event
            waiters, self._pending = self._pending, {}
        for waiter in waiters.values():
            waiter.settle(event)
        self._closing = True
        self._closed.set()

    def _to_sink(self, event: ConnectionEvent) -> None:
        with self._sink_lock:
            sink = self._sink
            if sink is None:
                if len(self._buffered) >= _MAX_BUFFERED_EVENTS:
                    del self._buffered[0]
                self._buffered.append(event)
                return
            self._deliver(sink, event)

    def _deliver(self, sink: EventSink, event: ConnectionEvent) -> None:
        try:
            sink(event)
        except Exception:
            log.exception("the event sink of %s failed on %r", self.name, event)

    def _raise_if_closed(self, method: str) -> None:
        if self._session.state is State.CLOSED:
            gone = self._disconnection
            reason = gone.reason if gone else "the connection is closed"
            hint = gone.reconnect_hint if gone else Disconnection(reason).reconnect_hint
            raise Disconnected(f"{method} on {self.name}: {reason}", reconnect_hint=hint)

    def _stream_close(self) -> None:
        with contextlib.suppress(OSError, MobileAgentError):
            self._stream.close()
