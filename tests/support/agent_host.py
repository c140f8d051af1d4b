"""A scripted host for the agent double's core: frames over one of the device's stream pairs, and a
core on its own UI model."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from typing import Any

from pytest_mobile_agent import errors
from pytest_mobile_agent.agent import protocol as wire
from pytest_mobile_agent.virtual.agent import AgentCore, Identity, Platform
from pytest_mobile_agent.virtual.kernel.streams import DeviceStream, Kernel, stream_pair
from pytest_mobile_agent.virtual.ui import EmulatorUi, UiModel
from pytest_mobile_agent.virtual.ui.fixture import COMPOSE_MS, LAUNCH_MS

TOKEN = "0123456789abcdef0123456789abcdef"
SOCKET = "mobile-agent-0.1.0-p1-7fec0cb05341-9f3cf6e22dae"
DISPLAY = {"width": 1080, "height": 2400, "density": 420, "rotation": 0}


class Host:
    """One host connection to a core: send frames, read them back with a deadline."""

    def __init__(self, core: AgentCore, kernel: Kernel, peer_uid: int = 2000) -> None:
        ours, theirs = stream_pair(kernel, "host")
        self.stream: DeviceStream = ours
        self.decoder = wire.FrameDecoder()
        self.inbox: list[dict[str, Any]] = []
        self.events: list[dict[str, Any]] = []
        self.pings: list[dict[str, Any]] = []
        self.next_id = 1
        core.serve(theirs, peer_uid)

    def send(self, message: dict[str, Any]) -> None:
        self.stream.send(wire.encode(message))

    def send_raw(self, data: bytes) -> None:
        self.stream.send(data)

    def recv(self, timeout: float = 3.0) -> dict[str, Any] | None:
        """The next frame; None at the end of the stream."""
        deadline = time.monotonic() + timeout
        while not self.inbox:
            left = deadline - time.monotonic()
            if left <= 0:
                raise errors.Timeout("host recv", timeout)
            try:
                data = self.stream.recv(left)
            except errors.Timeout:
                continue
            if not data:
                return None
            self.inbox.extend(self.decoder.feed(data))
        return self.inbox.pop(0)

    def recv_kind(self, kind: str, timeout: float = 3.0) -> dict[str, Any]:
        """The next frame of `kind`, keeping events and pings seen on the way."""
        deadline = time.monotonic() + timeout
        while True:
            message = self.recv(max(0.01, deadline - time.monotonic()))
            if message is None:
                raise AssertionError(f"the stream ended before a {kind} frame")
            if message["type"] == kind:
                return message
            if message["type"] == "event":
                self.events.append(message)
            elif message["type"] == "ping":
                self.pings.append(message)
                self.send({"type": "pong", "nonce": message["nonce"]})
            else:
                raise AssertionError(f"a {message['type']} frame where a {kind} was due: {message}")

    def recv_kind_events(self, timeout: float = 0.2) -> list[dict[str, Any]]:
        """Read events (and answer pings) for up to `timeout`; the events seen so far."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                message = self.recv(max(0.01, deadline - time.monotonic()))
            except errors.Timeout:
                break
            if message is None:
                break
            if message["type"] == "event":
                self.events.append(message)
            elif message["type"] == "ping":
                self.send({"type": "pong", "nonce": message["nonce"]})
            else:
                self.inbox.insert(0, message)
                break
        return self.events

    def handshake(self, token: str = TOKEN) -> dict[str, Any]:
        self.send({"type": "auth", "token": token})
        hello = self.recv_kind("hello")
        self.send({"type": "welcome", "protocol": 1, "host": "pytest-mobile-agent 0.1.0"})
        return hello

    def call(self, method: str, params: dict[str, Any] | None = None, deadline_ms: int = 5000,
             timeout: float = 6.0) -> dict[str, Any]:
        """The response to one request (result or error)."""
        request_id = self.next_id
        self.next_id += 1
        self.send({"type": "request", "id": request_id, "method": method, "deadline_ms": deadline_ms,
                   "params": params or {}})
        response = self.recv_kind("response", timeout)
        assert response["id"] == request_id
        return response

    def result(self, method: str, params: dict[str, Any] | None = None, **kw: Any) -> dict[str, Any]:
        response = self.call(method, params, **kw)
        assert "result" in response, response
        result: dict[str, Any] = response["result"]
        return result

    def close(self) -> None:
        self.stream.close()


def make_core(ui: UiModel | None = None, uid: int = 2000) -> tuple[AgentCore, list[str]]:
    """A core on its own UI model, running as `uid` (0: started by root); the diagnostics it prints
    are collected in the list."""
    lines: list[str] = []
    model = ui or EmulatorUi()
    identity = Identity("0.1.0", "7fec0cb05341", 2973, SOCKET, TOKEN, uid=uid)
    core = AgentCore(identity, Platform(model, lambda: dict(DISPLAY), diagnostic=lines.append))
    return core, lines


def on_tab(ui: EmulatorUi, tab: str) -> None:
    """Start the fixture app on `tab` and wait (real time) until its screen is composed."""
    ui.start_app({"tab": tab})
    time.sleep((LAUNCH_MS + COMPOSE_MS[tab] + 20) / 1000)
    ui.advance()


@contextlib.contextmanager
def double_on_login() -> Iterator[tuple[EmulatorUi, AgentCore, Host]]:
    """The agent double on a UI showing the fixture's Login tab, handshaken through a `Host`; closed and
    stopped after (the conformance suites' double side)."""
    ui = EmulatorUi()
    on_tab(ui, "Login")
    core, _ = make_core(ui)
    host = Host(core, Kernel())
    host.handshake()
    try:
        yield ui, core, host
    finally:
        host.close()
        core.stop()
