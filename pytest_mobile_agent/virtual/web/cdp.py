"""The double's own DevTools client, over chromium's `--remote-debugging-pipe`: each message is one
JSON object followed by a NUL byte, both ways (content/browser/devtools/devtools_pipe_handler.cc).

Commands carry an `id` and, for a page attached with `Target.attachToTarget(flatten=True)`, its
`sessionId`; `call` waits for the answer with the same id. Events go to the subscribers, on the
reader thread, in order; a subscriber must not `call` (it would wait for the thread it runs on):
it hands work to a thread of its own instead. When chromium's end closes, every waiter gets
`errors.Closed`.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import logging
import os
import threading
from collections.abc import Callable
from typing import Any

from pytest_mobile_agent import errors

log = logging.getLogger("pytest_mobile_agent.virtual")

CALL_TIMEOUT_S = 10.0

#: (method, params, sessionId or None)
EventHandler = Callable[[str, dict[str, Any], "str | None"], None]


class CdpError(errors.MobileAgentError):
    """Chromium answered a command with an error."""


class CdpPipe:
    """A DevTools client on the two pipe descriptors (`write_fd` to chromium, `read_fd` from it)."""

    def __init__(self, write_fd: int, read_fd: int, *, label: str) -> None:
        self._write_fd = write_fd
        self._read_fd = read_fd
        self._label = label
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._write_lock = threading.Lock()
        self._waiting: dict[int, tuple[threading.Event, dict[str, Any]]] = {}
        self._handlers: list[EventHandler] = []
        self._closed = False
        self._reader = threading.Thread(target=self._read_loop, name=f"virtual-cdp {label}", daemon=True)
        self._reader.start()

    def subscribe(self, handler: EventHandler) -> None:
        with self._lock:
            self._handlers.append(handler)

    def unsubscribe(self, handler: EventHandler) -> None:
        with self._lock, contextlib.suppress(ValueError):
            self._handlers.remove(handler)

    def call(self, method: str, params: dict[str, Any] | None = None, *, session: str | None = None,
             timeout: float = CALL_TIMEOUT_S) -> dict[str, Any]:
        """The command's result; CdpError with chromium's message, errors.Timeout, errors.Closed."""
        message_id = next(self._ids)
        message: dict[str, Any] = {"id": message_id, "method": method, "params": params or {}}
        if session is not None:
            message["sessionId"] = session
        done = threading.Event()
        answer: dict[str, Any] = {}
        with self._lock:
            if self._closed:
                raise errors.Closed(f"{self._label}: chromium's DevTools pipe is closed")
            self._waiting[message_id] = (done, answer)
        try:
            self._write(json.dumps(message).encode() + b"\0")
            if not done.wait(timeout):
                raise errors.Timeout(f"{self._label}: DevTools {method}", timeout)
        finally:
            with self._lock:
                self._waiting.pop(message_id, None)
        if "closed" in answer:
            raise errors.Closed(f"{self._label}: chromium ended during {method}")
        if "error" in answer:
            raise CdpError(f"{self._label}: {method}: {answer['error'].get('message', answer['error'])}")
        result = answer.get("result", {})
        return result if isinstance(result, dict) else {}

    def _write(self, data: bytes) -> None:
        with self._write_lock:
            view = memoryview(data)
            while view:
                try:
                    written = os.write(self._write_fd, view)
                except OSError as exc:
                    raise errors.Closed(f"{self._label}: writing to chromium: {exc}") from None
                view = view[written:]

    def _read_loop(self) -> None:
        buffer = bytearray()
        try:
            while True:
                try:
                    chunk = os.read(self._read_fd, 1 << 16)
                except OSError:
                    break
                if not chunk:
                    break
                buffer += chunk
                while (end := buffer.find(b"\0")) >= 0:
                    raw, buffer = bytes(buffer[:end]), buffer[end + 1:]
                    self._dispatch(raw)
        finally:
            self._close_waiters()

    def _dispatch(self, raw: bytes) -> None:
        try:
            message = json.loads(raw)
        except ValueError:
            log.debug("%s: not JSON from chromium: %r", self._label, raw[:200])
            return
        if "id" in message:
            with self._lock:
                waiter = self._waiting.get(message["id"])
            if waiter is not None:
                waiter[1].update(message)
                waiter[0].set()
            return
        with self._lock:
            handlers = list(self._handlers)
        for handler in handlers:
            try:
                handler(message.get("method", ""), message.get("params", {}), message.get("sessionId"))
            except Exception:  # noqa: BLE001 - one subscriber's failure must not stop the others
                log.exception("%s: a DevTools event handler failed", self._label)

    def _close_waiters(self) -> None:
        with self._lock:
            self._closed = True
            waiting = list(self._waiting.values())
        for done, answer in waiting:
            answer["closed"] = True
            done.set()

    @property
    def closed(self) -> bool:
        return self._closed
