"""The loopback bridge: a TCP listener on 127.0.0.1 whose every connection is relayed, byte for byte,
through the adb client's `localabstract:<socket>` stream to a DevTools server on the device.

No `adb forward` rule is installed (none is left behind by a killed test, and it works the same
through a remote adb server, `tcp:HOST:PORT/SERIAL`, whose forward would listen on the server's
host), and no chromedriver: Playwright connects to the bridge's port as to any Chromium's
`--remote-debugging-port` (`chromium.connect_over_cdp`). Playwright's own Android support opens
the same stream per connection (packages/playwright-core/src/server/android/android.ts,
`_connectToBrowser` -> `_waitForLocalAbstract`).

Each connection has a thread that relays both ways until either side ends, then closes both: a
socket the device closes (the WebView gone, the app killed) ends the client's connection at once,
so Playwright sees its browser disconnect instead of waiting. `lost` says that happened.
"""

from __future__ import annotations

import contextlib
import logging
import selectors
import socket
import threading
from dataclasses import dataclass, field

from pytest_mobile_agent.errors import MobileAgentError
from pytest_mobile_agent.web.seam import ByteStream, DeviceSockets

log = logging.getLogger("pytest_mobile_agent.web")
CHUNK = 256 * 1024
JOIN_SECONDS = 2.0


@dataclass
class _Relay:
    client: socket.socket
    stream: ByteStream | None = None
    thread: threading.Thread | None = None
    ended_by: str = ""


@dataclass
class Bridge:
    """One device socket reachable on `127.0.0.1:<port>` for as long as the bridge is open."""

    device: DeviceSockets
    socket_name: str
    _listener: socket.socket = field(init=False)
    _relays: list[_Relay] = field(default_factory=list, init=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False)
    _closed: bool = field(default=False, init=False)
    lost: str = field(default="", init=False)
    """Why the device ended a relayed connection the client still had open ('' while none did)."""

    def __post_init__(self) -> None:
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._accepting = threading.Thread(target=self._accept_loop, daemon=True,
                                           name=f"mobile-agent-web-bridge {self.socket_name}")
        self._accepting.start()

    @property
    def port(self) -> int:
        return int(self._listener.getsockname()[1])

    @property
    def http_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def connections(self) -> int:
        """The connections relayed now."""
        with self._lock:
            return sum(1 for relay in self._relays if not relay.ended_by)

    def _accept_loop(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return  # the listener closed
            client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # a CDP message is one small write:
            relay = _Relay(client)  # Nagle's wait for the ACK of the last would delay every answer 40 ms
            with self._lock:
                if self._closed:
                    client.close()
                    return
                self._relays.append(relay)
            relay.thread = threading.Thread(target=self._relay, args=(relay,), daemon=True,
                                            name=f"mobile-agent-web-relay {self.socket_name}")
            relay.thread.start()

    def _relay(self, relay: _Relay) -> None:
        try:
            relay.stream = self.device.open_abstract(self.socket_name)
        except (MobileAgentError, OSError) as exc:
            relay.ended_by = f"the device refused localabstract:{self.socket_name}: {exc}"
            self._note_lost(relay.ended_by)
            relay.client.close()
            return
        try:
            relay.ended_by = pump(relay.client, relay.stream.socket)
            if relay.ended_by == "device":  # said before the client sees the end, so its failure can say why
                self._note_lost(f"the device closed localabstract:{self.socket_name}")
        finally:
            relay.client.close()
            relay.stream.close()

    def _note_lost(self, reason: str) -> None:
        with self._lock:
            if not self._closed and not self.lost:
                self.lost = reason
                log.info("web bridge %s: %s", self.socket_name, reason)

    def close(self) -> None:
        """Stop listening and end every relayed connection; the relays' threads are joined."""
        with self._lock:
            self._closed = True
            relays = list(self._relays)
        with contextlib.suppress(OSError):
            self._listener.shutdown(socket.SHUT_RDWR)  # wakes the accept (closing alone leaves it listening)
        self._listener.close()
        for relay in relays:
            with contextlib.suppress(OSError):
                relay.client.shutdown(socket.SHUT_RDWR)
            with contextlib.suppress(OSError):
                if relay.stream is not None:
                    relay.stream.socket.shutdown(socket.SHUT_RDWR)
        self._accepting.join(JOIN_SECONDS)
        for relay in relays:
            if relay.thread is not None:
                relay.thread.join(JOIN_SECONDS)

    @property
    def closed(self) -> bool:
        return self._closed


def pump(client: socket.socket, device: socket.socket) -> str:
    """Relay both ways until one side ends; returns which did (`client`, `device`)."""
    peers = {client: device, device: client}
    names = {client: "client", device: "device"}
    with selectors.DefaultSelector() as selector:
        for sock in peers:
            sock.setblocking(True)
            selector.register(sock, selectors.EVENT_READ)
        while True:
            for key, _ in selector.select():
                source: socket.socket = key.fileobj  # type: ignore[assignment]
                try:
                    data = source.recv(CHUNK)
                except OSError:
                    data = b""
                if not data:
                    return names[source]
                try:
                    peers[source].sendall(data)
                except OSError:
                    return names[peers[source]]
