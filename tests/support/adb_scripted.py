"""A scripted adb server: a loopback TCP server that answers scripted bytes and records what it got.

Each connection the client opens goes to the next handler of the script, a function of a `Peer`.
A handler reads the client's requests (`peer.expect("host:version")`), answers them (`peer.okay()`,
`peer.send_lp(b"0029")`, `peer.fail("device 'x' not found")`), and whatever it asserts is reported
by `ScriptedAdbServer.stop()`, so a client that sent the wrong bytes fails the test that used it.
"""

from __future__ import annotations

import socket
import struct
import threading
import time
from collections.abc import Callable

from pytest_mobile_agent.adb import AdbServer, wire

Handler = Callable[["Peer"], None]

PEER_TIMEOUT = 5.0  # no handler waits longer than this for the client


class Peer:
    """The server's end of one client connection."""

    def __init__(self, sock: socket.socket, index: int) -> None:
        self.sock = sock
        self.index = index
        self.received = bytearray()
        self.requests: list[str] = []
        sock.settimeout(PEER_TIMEOUT)

    # --- reading ---------------------------------------------------------------------------------

    def recv_exact(self, count: int) -> bytes:
        data = bytearray()
        while len(data) < count:
            chunk = self.sock.recv(count - len(data))
            if not chunk:
                raise AssertionError(f"the client closed the connection after {len(data)} of {count} bytes")
            data += chunk
        self.received += data
        return bytes(data)

    def read_request(self) -> str:
        length = wire.parse_hex_length(self.recv_exact(4))
        request = self.recv_exact(length).decode("utf-8")
        self.requests.append(request)
        return request

    def expect(self, request: str) -> str:
        got = self.read_request()
        assert got == request, f"expected request {request!r}, got {got!r}"
        return got

    def read_until_closed(self, timeout: float = PEER_TIMEOUT) -> bytes:
        """Everything the client sends until it closes its end (or resets it)."""
        self.sock.settimeout(timeout)
        data = bytearray()
        try:
            while True:
                chunk = self.sock.recv(65536)
                if not chunk:
                    break
                data += chunk
        except ConnectionResetError:
            pass
        self.received += data
        return bytes(data)

    def wait_closed(self, timeout: float = PEER_TIMEOUT) -> bool:
        """True once the client has closed its end; False if it is still open after timeout."""
        try:
            self.read_until_closed(timeout)
        except TimeoutError:
            return False
        return True

    def read_shell_packet(self) -> tuple[int, bytes]:
        kind, length = struct.unpack("<BI", self.recv_exact(5))
        return kind, self.recv_exact(length)

    def read_sync(self) -> tuple[bytes, int, bytes]:
        """One sync message from the client."""
        ident, word = struct.unpack("<4sI", self.recv_exact(8))
        if ident in wire.SYNC_WITH_PAYLOAD:
            return ident, word, self.recv_exact(word)
        return ident, word, b""

    # --- writing ---------------------------------------------------------------------------------

    def send(self, data: bytes) -> None:
        self.sock.sendall(data)

    def okay(self) -> None:
        self.send(wire.encode_okay())

    def fail(self, message: str) -> None:
        self.send(wire.encode_fail(message))

    def send_lp(self, payload: bytes) -> None:
        self.send(wire.encode_length_prefixed(payload))

    def shell(self, kind: int, data: bytes) -> None:
        self.send(wire.encode_shell_packet(kind, data))

    # --- common exchanges ------------------------------------------------------------------------

    def transport(self, serial: str, service: str) -> None:
        """`host:transport:<serial>` then `service`, both answered OKAY."""
        self.expect(f"host:transport:{serial}")
        self.okay()
        self.expect(service)
        self.okay()


class ScriptedAdbServer:
    """Serves each accepted connection with the next handler; records peers and handler failures."""

    def __init__(self, handlers: list[Handler]) -> None:
        self._handlers = list(handlers)
        self._listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._listener.bind(("127.0.0.1", 0))
        self._listener.listen(16)
        self._listener.settimeout(0.05)
        self.port: int = self._listener.getsockname()[1]
        self.peers: list[Peer] = []
        self.errors: list[BaseException] = []
        self._threads: list[threading.Thread] = []
        self._stopping = threading.Event()
        self._acceptor = threading.Thread(target=self._accept_loop, name="scripted-adb", daemon=True)
        self._acceptor.start()

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def connections(self) -> int:
        return len(self.peers)

    def requests(self) -> list[str]:
        """Every request of every connection, in order."""
        return [request for peer in self.peers for request in peer.requests]

    def _accept_loop(self) -> None:
        while not self._stopping.is_set():
            try:
                sock, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            peer = Peer(sock, len(self.peers))
            self.peers.append(peer)
            handler = self._handlers.pop(0) if self._handlers else None
            thread = threading.Thread(target=self._serve, args=(peer, handler), daemon=True)
            self._threads.append(thread)
            thread.start()

    def _serve(self, peer: Peer, handler: Handler | None) -> None:
        try:
            if handler is None:
                raise AssertionError(f"unexpected connection #{peer.index + 1}: the script has no handler left")
            handler(peer)
        except BaseException as exc:  # reported by stop()
            self.errors.append(exc)
        finally:
            peer.sock.close()

    def wait_idle(self, timeout: float = PEER_TIMEOUT) -> None:
        """Wait until every handler so far has returned."""
        end = time.monotonic() + timeout
        for thread in list(self._threads):
            thread.join(max(0.0, end - time.monotonic()))

    def stop(self) -> None:
        """Stop accepting, join every handler, and raise the first failure a handler met."""
        self.wait_idle()
        self._stopping.set()
        self._acceptor.join(PEER_TIMEOUT)
        self._listener.close()
        if self.errors:
            raise self.errors[0]
        if self._handlers:
            raise AssertionError(f"{len(self._handlers)} scripted connection(s) never came")

    def __enter__(self) -> ScriptedAdbServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def client(server: ScriptedAdbServer, io_timeout: float = 2.0) -> AdbServer:
    """An AdbServer pointed at the scripted server."""
    return AdbServer(host="127.0.0.1", port=server.port, connect_timeout=1.0, io_timeout=io_timeout)
