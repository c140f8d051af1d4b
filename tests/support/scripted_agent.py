"""An in-process agent peer speaking protocol 1 over one end of a socketpair, scripted by the tests."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pytest_mobile_agent.agent.protocol import FrameDecoder, encode

TOKEN = "0123456789abcdef0123456789abcdef"
BUILD = "7fec0cb05341"
SOCKET = "mobile-agent-0.1.0-p1-7fec0cb05341-9f3cf6e22dae"

Handler = Callable[[dict[str, Any]], Any]


class Reply:
    """A handler's answer: a result, an error, or nothing (never answered)."""

    @staticmethod
    def error(code: str, message: str = "", retryable: bool = False) -> dict[str, Any]:
        return {"__error__": {"code": code, "message": message or code, "retryable": retryable}}

    NONE = object()


@dataclass
class AgentIdentity:
    token: str = TOKEN
    version: str = "0.1.0"
    build: str = BUILD
    protocols: tuple[int, ...] = (1,)
    capabilities: tuple[str, ...] = ("events", "bounds", "window_metadata", "text_clipboard", "multi_touch",
                                     "a11y_fields")
    pid: int = 2973
    socket: str = SOCKET

    def hello(self) -> dict[str, Any]:
        return {"type": "hello", "agent": "mobile-agent-android", "version": self.version, "build": self.build,
                "protocols": list(self.protocols), "capabilities": list(self.capabilities),
                "pid": self.pid, "socket": self.socket}


@dataclass
class ScriptedAgent:
    """Serves one connection: the handshake, then requests through `handlers`, pings answered.

    `received` holds every frame from the host; `welcomed`, `refused` and `ended` are set as the
    connection goes. `on_after_welcome` runs on the serving thread right after the welcome.
    """

    identity: AgentIdentity = field(default_factory=AgentIdentity)
    handlers: dict[str, Handler] = field(default_factory=dict)
    answer_pings: bool = True
    on_after_welcome: Callable[[ScriptedAgent], None] | None = None
    on_shutdown: Callable[[], None] | None = None
    received: list[dict[str, Any]] = field(default_factory=list)
    welcomed: threading.Event = field(default_factory=threading.Event)
    refused: threading.Event = field(default_factory=threading.Event)
    ended: threading.Event = field(default_factory=threading.Event)

    def __post_init__(self) -> None:
        self.host_end, self._end = socket.socketpair()
        self._end.settimeout(5.0)
        self._send_lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._seq = 0

    def start(self) -> ScriptedAgent:
        self._thread = threading.Thread(target=self._serve, name="scripted-agent", daemon=True)
        self._thread.start()
        return self

    # --- sending from the test ----------------------------------------------------------------

    def send(self, message: dict[str, Any]) -> None:
        with self._send_lock:
            self._end.sendall(encode(message))

    def send_raw(self, data: bytes) -> None:
        with self._send_lock:
            self._end.sendall(data)

    def event(self, name: str = "window_changed", data: dict[str, Any] | None = None, seq: int | None = None) -> int:
        self._seq = self._seq + 1 if seq is None else seq
        self.send({"type": "event", "seq": self._seq, "name": name, "data": data or {"window": 12}})
        return self._seq

    def hang_up(self) -> None:
        """Close the agent's end: the host sees the end of the stream."""
        with contextlib.suppress(OSError):
            self._end.shutdown(socket.SHUT_RDWR)
        self._end.close()

    def close(self) -> None:
        self.hang_up()
        self.host_end.close()
        if self._thread is not None:
            self._thread.join(2.0)

    def frames(self, kind: str) -> list[dict[str, Any]]:
        return [m for m in list(self.received) if m["type"] == kind]

    def wait_for(self, predicate: Callable[[], bool], timeout: float = 2.0) -> bool:
        deadline = time.monotonic() + timeout
        while not predicate():
            if time.monotonic() > deadline:
                return False
            time.sleep(0.005)
        return True

    # --- serving ----------------------------------------------------------------------------

    def _serve(self) -> None:
        decoder = FrameDecoder()
        state = "auth"
        try:
            while True:
                try:
                    data = self._end.recv(65536)
                except OSError:
                    return
                if not data:
                    return
                for message in decoder.feed(data):
                    self.received.append(message)
                    state = self._handle(state, message)
                    if state == "closed":
                        self.hang_up()
                        return
        except Exception:
            self.hang_up()
        finally:
            self.ended.set()

    def _handle(self, state: str, message: dict[str, Any]) -> str:
        kind = message["type"]
        if state == "auth":
            if kind != "auth" or message.get("token") != self.identity.token:
                self.send({"type": "refused", "code": "unauthorized", "message": "unauthorized"})
                return "closed"
            self.send(self.identity.hello())
            return "hello"
        if state == "hello":
            if kind == "refuse":
                self.refused.set()
                return "closed"
            if kind != "welcome":
                self.send({"type": "closing", "reason": "protocol_error"})
                return "closed"
            self.welcomed.set()
            if self.on_after_welcome:
                self.on_after_welcome(self)
            return "serving"
        if kind == "ping" and self.answer_pings:
            self.send({"type": "pong", "nonce": message["nonce"]})
        elif kind == "request":
            return self._answer(message)
        return state

    def _answer(self, request: dict[str, Any]) -> str:
        method = request["method"]
        handler = self.handlers.get(method)
        if method == "shutdown" and handler is None:
            self.send({"type": "response", "id": request["id"], "result": {}})
            if self.on_shutdown:
                self.on_shutdown()
            self.send({"type": "closing", "reason": "shutdown"})
            return "closed"
        if handler is None:
            self.send({"type": "response", "id": request["id"],
                       "error": {"code": "unknown_method", "message": method, "retryable": False}})
            return "serving"
        answer = handler(request)
        if answer is Reply.NONE:
            return "serving"
        if isinstance(answer, dict) and "__error__" in answer:
            self.send({"type": "response", "id": request["id"], "error": answer["__error__"]})
        else:
            self.send({"type": "response", "id": request["id"], "result": answer})
        return "serving"
