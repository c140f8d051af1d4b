"""One connection to the adb server: smart-socket requests and replies under deadlines.

Every read and write has a deadline: the connection's io timeout, or the time left to an absolute
`time.monotonic()` deadline of the caller's. A timeout, or a read that reports EAGAIN/EWOULDBLOCK,
is `errors.Timeout`; any other socket failure is `errors.Closed`; never a bare OSError.
"""

from __future__ import annotations

import contextlib
import logging
import socket
import time

from pytest_mobile_agent.adb import wire
from pytest_mobile_agent.errors import (
    AdbFailure,
    Closed,
    ProtocolError,
    ServerUnreachable,
    Timeout,
    is_timeout,
    wrap_os_error,
)

log = logging.getLogger("pytest_mobile_agent.adb")

# adb 29 answers a forward for a missing serial with an empty FAIL; say so rather than print nothing.
NO_REASON = "FAIL without a reason (is the serial right? `adb devices` lists the targets)"


class AdbConnection:
    """A socket to the adb server (and, after a transport is chosen, to a service on adbd)."""

    def __init__(self, sock: socket.socket, address: str, io_timeout: float) -> None:
        self.sock = sock
        self.address = address
        self.io_timeout = io_timeout
        self._call_deadline: float | None = None
        self._call_total: float | None = None

    @classmethod
    def open(
        cls, host: str, port: int, *, connect_timeout: float, io_timeout: float, deadline: float | None = None
    ) -> AdbConnection:
        address = f"{host}:{port}"
        timeout = connect_timeout if deadline is None else max(0.001, min(connect_timeout, deadline - time.monotonic()))
        try:
            sock = socket.create_connection((host, port), timeout=timeout)
        except ConnectionRefusedError:
            raise ServerUnreachable(address, "connection refused (nothing listens there)") from None
        except OSError as exc:
            if is_timeout(exc) and deadline is not None and time.monotonic() >= deadline:
                raise Timeout(f"connecting to the adb server at {address}", timeout) from None
            if is_timeout(exc):
                raise ServerUnreachable(address, f"no answer within the connect deadline of {timeout:g} s") from None
            raise ServerUnreachable(address, exc.strerror or str(exc)) from None
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return cls(sock, address, io_timeout)

    # --- raw io -------------------------------------------------------------------------------

    def bound(self, total: float) -> AdbConnection:
        """Every read and write from now on also ends by `total` seconds from now, whatever a peer
        that trickles its reply does to the per-read timeout (a call's total deadline)."""
        self._call_deadline = time.monotonic() + total
        self._call_total = total
        return self

    def unbound(self) -> AdbConnection:
        """Back to the per-read timeout alone: a stream's reads after its call's set-up."""
        self._call_deadline = self._call_total = None
        return self

    def _timeout_for(self, deadline: float | None, operation: str, total: float | None) -> float:
        if deadline is None:
            if self._call_deadline is None:
                return self.io_timeout
            left = self._call_deadline - time.monotonic()
            if left <= 0:
                raise Timeout(operation, self._call_total)
            return min(self.io_timeout, left)
        left = deadline - time.monotonic()
        if left <= 0:
            raise Timeout(operation, total)
        return left

    def _reported(self, deadline: float | None, total: float | None, wait: float) -> float:
        """The deadline a timeout names: the caller's total, else the call's when it cut the wait
        short of the io timeout, else the wait."""
        if total is not None:
            return total
        if deadline is None and self._call_total is not None and wait < self.io_timeout:
            return self._call_total
        return wait

    def sendall(self, data: bytes | bytearray | memoryview, operation: str, *, deadline: float | None = None,
                total: float | None = None) -> None:
        timeout = self._timeout_for(deadline, operation, total)
        try:
            self.sock.settimeout(timeout)
            self.sock.sendall(data)
        except OSError as exc:
            raise wrap_os_error(exc, operation, self._reported(deadline, total, timeout)) from None

    def recv(self, limit: int, operation: str, *, deadline: float | None = None, total: float | None = None,
             timeout: float | None = None) -> bytes:
        """Up to `limit` bytes; b"" at the end of the stream."""
        wait = timeout if timeout is not None else self._timeout_for(deadline, operation, total)
        try:
            self.sock.settimeout(wait)
            return self.sock.recv(limit)
        except OSError as exc:
            raise wrap_os_error(exc, operation, self._reported(deadline, total, wait)) from None

    def recv_exact(self, count: int, operation: str, *, deadline: float | None = None,
                   total: float | None = None) -> bytes:
        """Exactly `count` bytes. The stream ending before any byte is Closed, within them a ProtocolError."""
        chunks: list[bytes] = []
        got = 0
        while got < count:
            chunk = self.recv(count - got, operation, deadline=deadline, total=total)
            if not chunk:
                if got == 0:
                    raise Closed(f"{operation}: the adb server closed the connection")
                raise ProtocolError(
                    f"{operation}: truncated reply, {got} of {count} bytes before the end of the stream"
                )
            chunks.append(chunk)
            got += len(chunk)
        return chunks[0] if len(chunks) == 1 else b"".join(chunks)

    # --- smart-socket framing -----------------------------------------------------------------

    def request(self, payload: str, *, deadline: float | None = None, total: float | None = None) -> None:
        if "\x00" in payload:
            raise ProtocolError(f"an adb request cannot hold a NUL byte: {payload!r}")
        log.debug("-> %s %s", self.address, payload)
        self.sendall(wire.encode_request(payload), payload, deadline=deadline, total=total)

    def read_status(self, request: str, *, deadline: float | None = None, total: float | None = None) -> None:
        """OKAY, else the peer's FAIL text as AdbFailure (a FAIL "closed" as Closed)."""
        status = self.recv_exact(4, request, deadline=deadline, total=total)
        if status == wire.OKAY:
            return
        if status == wire.FAIL:
            reason = self.read_fail_message(request, deadline=deadline, total=total) or NO_REASON
            log.debug("<- %s FAIL %s", request, reason)
            if reason == "closed":
                raise Closed(f"{request}: closed (nothing accepted the connection on the device)")
            raise AdbFailure(request, reason)
        raise ProtocolError(f"{request}: expected OKAY or FAIL, got {status!r}")

    def read_fail_message(self, request: str, *, deadline: float | None = None, total: float | None = None) -> str:
        try:
            length = wire.parse_hex_length(self.recv_exact(4, request, deadline=deadline, total=total))
            return self.recv_exact(length, request, deadline=deadline, total=total).decode("utf-8", "replace")
        except Closed:
            return ""

    def read_length_prefixed(
        self, operation: str, *, deadline: float | None = None, total: float | None = None
    ) -> bytes:
        length = wire.parse_hex_length(self.recv_exact(4, operation, deadline=deadline, total=total))
        if length == 0:
            return b""
        return self.recv_exact(length, operation, deadline=deadline, total=total)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.close()

    def __enter__(self) -> AdbConnection:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
