"""The connection to a running agent: `HostSession` driven over a byte stream on a reader thread.

The stream is the adb service stream `localabstract:<socket>` (an `adb.AdbStream`), or any
socket-like object with `sendall`, `recv`, `settimeout`, `fileno` and `close` (the tests use a
socketpair). The reader thread waits for the stream to be readable or for the session's next timer
(a ping, the liveness bound, a resync backoff), so the socket itself stays in blocking mode with a
long io deadline and writes from caller threads never meet a read's short timeout.
"""

from __future__ import annotations

import contextlib
import logging
import select
import socket
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from pytest_mobile_agent.agent.protocol import (
    Disconnection,
    Established,
    Hello,
    HostSession,
    OutOfSync,
    ProtocolEvent,
    Response,
    Resynced,
    SessionEvent,
    State,
)
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


class Connection:
    """An authenticated connection to one agent. Use `Connection.open`."""

    def __init__(self, stream: ByteStream, session: HostSession, *, name: str = "agent",
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._stream = stream
        self._session = session
        self._clock = clock
        self.name = name
        self._lock = threading.RLock()  # the session's state and the writes to the stream
        self._sink_lock = threading.RLock()  # the sink and the events waiting for it
        self._sink: EventSink | None = None
        self._buffered: list[ConnectionEvent] = []
        self._pending: dict[int, _Waiter] = {}
        self._disconnection: Disconnection | None = None
        self._closed = threading.Event()
        self._closing = False
        self._thread: threading.Thread | None = None

    # --- opening ------------------------------------------------------------------------------

    @classmethod
    def open(cls, stream: ByteStream, token: str, *, timeout: float = 5.0, name: str = "agent",
             clock: Callable[[], float] = time.monotonic, session: HostSession | None = None) -> Connection:
        """Authenticate with `token` and complete the handshake within `timeout`, then start reading.

        Raises Unauthorized (a wrong token), VersionMismatch (no common protocol: the agent was
        refused and exits), ProtocolError, Disconnected or Timeout; the stream is closed then.
        """
        session = session or HostSession(token=token)
        conn = cls(stream, session, name=name, clock=clock)
        try:
            conn._handshake(timeout)
        except BaseException:
            conn._stream_close()
            raise
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
        assert value.result is not None
        return value.result

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
        """Close the connection (the agent keeps running, and idles out without a host)."""
        with self._lock:
            self._closing = True
            self._session.close()
            events = self._session.take_events()
        for event in events:
            self._dispatch(event)
        raw = _raw_socket(self._stream)
        if raw is not None:
            with contextlib.suppress(OSError):
                raw.shutdown(socket.SHUT_RDWR)
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(2.0)
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
        finally:
            self._stream_close()

    def _wait_readable(self, wait: float) -> bool:
        try:
            readable, _, _ = select.select([self._stream], [], [], max(0.0, wait))
        except (OSError, ValueError):
            return True  # a closed descriptor: the read reports the end
        return bool(readable)

    def _recv(self) -> bytes:
        try:
            return self._stream.recv(_READ_SIZE)
        except (OSError, MobileAgentError) as exc:
            # readable, yet the read failed (reset, or a timeout no socket in blocking mode gives
            # after select): the stream is over either way
            log.debug("%s: the read failed (%s%s)", self.name, exc, ", a timeout" if is_timeout(exc) else "")
            return b""

    def _flush(self) -> None:
        with self._lock:
            data = self._session.take_outgoing()
            if not data or self._closed.is_set():
                return
            try:
                self._stream.sendall(data)
            except (OSError, MobileAgentError) as exc:
                log.debug("%s: a write failed (%s)", self.name, exc)
                self._session.stream_ended(self._clock())

    def _dispatch(self, event: SessionEvent) -> None:
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
