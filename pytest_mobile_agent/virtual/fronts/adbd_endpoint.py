"""The virtual device's adbd front: the device transport (CNXN, OPEN, OKAY, WRTE, CLSE) on loopback.

A real adb server attaches it the way it attaches an emulator: it connects to 127.0.0.1:5555 (the
odd ports 5555..5585, serial ``emulator-<port - 1>``) at start-up or when told ``host:emulator:PORT``,
or to any port through ``adb connect 127.0.0.1:PORT``. Each message is a 24 byte header (command,
arg0, arg1, data length, data checksum, command ^ 0xffffffff) and its data.

We answer CNXN with our own CNXN (no AUTH: an emulator's adbd does not ask the local server to
authenticate) and the banner ``device::ro.product.name=...;...;features=...``. Version 0x01000001
means checksums are neither sent nor checked once both sides speak it. Each stream moves one WRTE at
a time: a sender waits for the peer's OKAY before the next (no ``delayed_ack``).

Streams the server opens go to ``device.open_service``. Streams the device opens (a device-side
connection to a reverse rule) are OPENed toward the server through :meth:`AdbdConnection.open_host`.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import queue
import select
import socket
import struct
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pytest_mobile_agent import errors
from pytest_mobile_agent.virtual.adbd.daemon import HostConnector
from pytest_mobile_agent.virtual.fronts.loopback import (
    ADBD_PORTS,
    AcceptLoop,
    bind_loopback,
    reserve_emulator_port,
)
from pytest_mobile_agent.virtual.fronts.seam import ServedDevice
from pytest_mobile_agent.virtual.kernel.sockets import AddressInUse
from pytest_mobile_agent.virtual.kernel.streams import ByteStream

log = logging.getLogger("pytest_mobile_agent.virtual")

A_SYNC = 0x434E5953
A_CNXN = 0x4E584E43
A_AUTH = 0x48545541
A_OPEN = 0x4E45504F
A_OKAY = 0x59414B4F
A_CLSE = 0x45534C43
A_WRTE = 0x45545257
A_STLS = 0x534C5453

COMMAND_NAMES = {
    A_SYNC: "SYNC",
    A_CNXN: "CNXN",
    A_AUTH: "AUTH",
    A_OPEN: "OPEN",
    A_OKAY: "OKAY",
    A_CLSE: "CLSE",
    A_WRTE: "WRTE",
    A_STLS: "STLS",
}

A_VERSION_MIN = 0x01000000
A_VERSION_SKIP_CHECKSUM = 0x01000001
A_VERSION = A_VERSION_SKIP_CHECKSUM
MAX_PAYLOAD = 1024 * 1024
HEADER = struct.Struct("<6I")

# What an API 36 emulator advertises, less what this double does not do: the sync compressions
# (sendrecv_v2_brotli, _lz4, _zstd: no codec in Python's standard library; a client compresses only
# what the device advertises) and delayed_ack (see docs/architecture.md). Debian's adb 29 uses
# shell_v2, cmd, stat_v2, ls_v2 and the push fixes; it ignores the names it does not know; adb 35
# pushes and pulls with SND2/RCV2 when it sees sendrecv_v2.
FEATURES = (
    "shell_v2",
    "cmd",
    "stat_v2",
    "ls_v2",
    "fixed_push_mkdir",
    "apex",
    "abb",
    "fixed_push_symlink_timestamp",
    "abb_exec",
    "remount_shell",
    "track_app",
    "push_sync",
    "devicetracker_proto_format",
    "devraw",
    "app_info",
    "sendrecv_v2",
    "sendrecv_v2_dry_run_send",
)

RESTART_DELAY = 0.2  # adbd's reply to root: reaches the server before init restarts adbd

# How long a stream's output waits for a reader that takes nothing (a command's output that the
# host does not read): a real adbd waits for ever; we give up on that stream after five minutes.
STALL_TIMEOUT = 300.0


@dataclass(frozen=True)
class Message:
    command: int
    arg0: int
    arg1: int
    data: bytes = b""

    @property
    def name(self) -> str:
        return COMMAND_NAMES.get(self.command, f"{self.command:08x}")


def checksum(data: bytes) -> int:
    return sum(data) & 0xFFFFFFFF


def encode_message(command: int, arg0: int, arg1: int, data: bytes = b"", *, with_checksum: bool = False) -> bytes:
    """The 24 byte header and the data; the checksum only for peers older than 0x01000001."""
    check = checksum(data) if with_checksum else 0
    return HEADER.pack(command, arg0, arg1, len(data), check, command ^ 0xFFFFFFFF) + data


def decode_header(header: bytes, *, max_payload: int = MAX_PAYLOAD) -> tuple[int, int, int, int, int]:
    """(command, arg0, arg1, length, checksum); ProtocolError on a bad magic or an oversized length."""
    if len(header) != HEADER.size:
        raise errors.ProtocolError(f"an adb message header is {HEADER.size} bytes, got {len(header)}")
    command, arg0, arg1, length, check, magic = HEADER.unpack(header)
    if magic != command ^ 0xFFFFFFFF:
        raise errors.ProtocolError(f"bad magic {magic:08x} for command {command:08x}")
    if length > max_payload:
        raise errors.ProtocolError(f"message of {length} bytes exceeds the maximum payload of {max_payload}")
    return command, arg0, arg1, length, check


def banner(properties: dict[str, str], features: tuple[str, ...] = FEATURES) -> bytes:
    """``device::ro.product.name=...;ro.product.model=...;ro.product.device=...;features=...``."""
    props = "".join(f"{key}={properties.get(key, '')};" for key in PRODUCT_KEYS)
    return f"device::{props}features={','.join(features)}".encode()


PRODUCT_KEYS = ("ro.product.name", "ro.product.model", "ro.product.device")


def device_properties(device: ServedDevice) -> dict[str, str]:
    """The product properties of a device model (``device.properties``) that the banner carries."""
    return {key: str(device.properties.get(key, "")) for key in PRODUCT_KEYS}


def wait_readable(sock: socket.socket, timeout: float | None) -> bool:
    """True when a recv on sock would not block (data, end of stream or an error).

    Reads poll instead of changing the socket's timeout, which a writer on another thread shares:
    a socket keeps one timeout, the write deadline, for its whole life.
    """
    if sock.fileno() < 0:
        raise OSError(errno.EBADF, "the socket is closed")
    poller = select.poll()
    poller.register(sock, select.POLLIN | select.POLLPRI)
    return bool(poller.poll(None if timeout is None else max(0, int(timeout * 1000))))


def drop_reverse_rules(device: ServedDevice, connector: HostConnector) -> list[str]:
    """Remove the device's reverse rules that lead to ``connector``, as adbd drops a transport's
    rules when that transport goes (``adb kill-server``, a cable pulled). The removed remotes."""
    dropped = [remote for remote, rule in list(device.reverse_rules.items()) if rule.connector == connector]
    for remote in dropped:
        with contextlib.suppress(Exception):
            reply = device.open_service(f"reverse:killforward:{remote}")
            while recv_device(reply, 1.0):
                pass
            reply.close()
    return dropped


def recv_device(stream: Any, timeout: float) -> bytes | None:
    """One read from a DeviceStream: bytes, b"" at its end, None when nothing came in time."""
    try:
        data = stream.recv(timeout)
    except errors.Closed:
        return b""
    except Exception as exc:
        if errors.is_timeout(exc):
            return None
        raise
    return bytes(data)


class _Stream:
    """One adb stream on a connection, from either side; a WRTE at a time in each direction."""

    def __init__(self, conn: AdbdConnection, local_id: int, remote_id: int = 0) -> None:
        self.conn = conn
        self.local_id = local_id
        self.remote_id = remote_id
        self.opened = threading.Event()  # for streams we open: OKAY (or CLSE) arrived
        self.may_write = threading.Event()  # the peer acknowledged our last WRTE
        self.closed = threading.Event()
        self.inbound: queue.Queue[bytes | None] = queue.Queue()
        self._close_lock = threading.Lock()
        self._sent_close = False

    # --- toward the peer ---

    def write(self, data: bytes) -> None:
        view = memoryview(data)
        limit = self.conn.peer_max_payload
        while view:
            if not self._wait_writable():
                raise errors.Closed(f"adb stream {self.local_id} closed by the adb server")
            chunk, view = view[:limit], view[limit:]
            self.may_write.clear()
            self.conn.send(A_WRTE, self.local_id, self.remote_id, bytes(chunk))

    def _wait_writable(self) -> bool:
        """Until the peer's OKAY for our last WRTE: the adb server sends it once its client took
        the data, so a client that reads nothing holds the stream (up to STALL_TIMEOUT)."""
        deadline = time.monotonic() + self.conn.stall_timeout
        while not self.may_write.wait(0.05):
            if self.closed.is_set() or self.conn.stopped.is_set():
                return False
            if time.monotonic() > deadline:
                raise errors.Timeout("waiting for the adb server to acknowledge a WRTE", self.conn.stall_timeout)
        return not self.closed.is_set()

    def send_close(self) -> None:
        with self._close_lock:
            if self._sent_close:
                return
            self._sent_close = True
        self.closed.set()
        self.conn.forget(self)
        if self.remote_id:
            self.conn.send(A_CLSE, self.local_id, self.remote_id)

    # --- from the peer ---

    def peer_closed(self) -> None:
        with self._close_lock:
            self._sent_close = True
        self.closed.set()
        self.opened.set()
        self.inbound.put(None)

    def acknowledge(self) -> None:
        """OKAY for the peer's last WRTE. A transport gone meanwhile is no error here: the
        connection has stopped and closed its streams, so the reader sees the end next."""
        if self.remote_id and not self.closed.is_set():
            with contextlib.suppress(errors.MobileAgentError):
                self.conn.send(A_OKAY, self.local_id, self.remote_id)


class HostStream:
    """A stream the device opened toward the adb server (a reverse rule's connection).

    It has the DeviceStream shape the device model expects: ``send``, ``recv(timeout)`` (b"" at the
    end), ``close``.
    """

    def __init__(self, stream: _Stream) -> None:
        self._stream = stream
        self._ended = False

    def send(self, data: bytes) -> None:
        self._stream.write(bytes(data))

    sendall = send

    def recv(self, timeout: float | None = None) -> bytes:
        if self._ended:
            return b""
        try:
            data = self._stream.inbound.get(timeout=timeout)
        except queue.Empty:
            raise errors.Timeout("reading a reverse stream from the adb server", timeout) from None
        if data is None:
            self._ended = True
            return b""
        self._stream.acknowledge()
        return data

    def close(self) -> None:
        self._stream.send_close()


class AdbdConnection:
    """One adb server attached to the endpoint: a reader thread and a thread per stream."""

    def __init__(self, endpoint: AdbdEndpoint, sock: socket.socket) -> None:
        self.endpoint = endpoint
        self.sock = sock
        self.io_timeout = endpoint.io_timeout
        self.stall_timeout = endpoint.stall_timeout
        self.peer_max_payload = MAX_PAYLOAD
        self.peer_version = A_VERSION  # until its CNXN says otherwise: checksums neither sent nor checked
        self.online = False
        self.online_once = False
        self.stopped = threading.Event()
        self._send_lock = threading.Lock()
        self._streams: dict[int, _Stream] = {}
        self._streams_lock = threading.Lock()
        self._next_id = 1
        self.sock.settimeout(self.io_timeout)

    # --- sending ---

    def send(self, command: int, arg0: int, arg1: int, data: bytes = b"") -> None:
        frame = encode_message(command, arg0, arg1, data, with_checksum=self.peer_version < A_VERSION_SKIP_CHECKSUM)
        try:
            with self._send_lock:
                self.sock.sendall(frame)
        except OSError as exc:
            self.stop()
            raise errors.wrap_os_error(exc, "writing to the adb server", self.io_timeout) from exc

    def _send_quietly(self, command: int, arg0: int, arg1: int, data: bytes = b"") -> None:
        with contextlib.suppress(errors.MobileAgentError):
            self.send(command, arg0, arg1, data)

    # --- streams ---

    def _new_stream(self, remote_id: int = 0) -> _Stream:
        with self._streams_lock:
            local_id = self._next_id
            self._next_id = self._next_id % 0x7FFFFFFF + 1
            stream = _Stream(self, local_id, remote_id)
            self._streams[local_id] = stream
        return stream

    def forget(self, stream: _Stream) -> None:
        with self._streams_lock:
            self._streams.pop(stream.local_id, None)

    def _stream(self, local_id: int) -> _Stream | None:
        with self._streams_lock:
            return self._streams.get(local_id)

    def open_host(self, service: str, timeout: float | None = None) -> HostStream:
        """OPEN a stream from the device side toward the adb server (``tcp:PORT`` for a reverse rule)."""
        if not self.online or self.stopped.is_set():
            raise errors.Closed("the adb server is not attached to this device")
        wait = self.io_timeout if timeout is None else timeout
        stream = self._new_stream()
        self.send(A_OPEN, stream.local_id, 0, service.encode() + b"\0")
        if not stream.opened.wait(wait):
            stream.closed.set()
            self.forget(stream)
            raise errors.Timeout(f"opening {service!r} toward the adb server", wait)
        if stream.closed.is_set():
            raise errors.Closed(f"the adb server refused the stream to {service!r}")
        return HostStream(stream)

    # --- the reader ---

    def run(self) -> None:
        """Read and dispatch the server's messages until the connection ends (on the thread the
        endpoint's accept loop gave it)."""
        try:
            while not self.stopped.is_set():
                message = self._read_message()
                if message is None:
                    break
                self._dispatch(message)
        except errors.ProtocolError as exc:
            log.warning("adbd endpoint %s: closing a connection: %s", self.endpoint.port, exc)
        except (OSError, errors.MobileAgentError) as exc:
            log.debug("adbd endpoint %s: connection ended: %s", self.endpoint.port, exc)
        finally:
            self.stop()

    def _read_exact(self, n: int, *, idle_ok: bool) -> bytes | None:
        """n bytes; None at a clean end. Idle waits between messages are unbounded; a message
        started and not finished within the I/O timeout is a ProtocolError."""
        buffer = bytearray()
        deadline = time.monotonic() + self.io_timeout
        while len(buffer) < n:
            if wait_readable(self.sock, 0.25):
                chunk = self.sock.recv(n - len(buffer))
            else:
                if self.stopped.is_set():
                    return None
                if (buffer or not idle_ok) and time.monotonic() > deadline:
                    raise errors.ProtocolError(
                        f"truncated message: {len(buffer)} of {n} bytes within {self.io_timeout:g} s") from None
                if not buffer and idle_ok:
                    deadline = time.monotonic() + self.io_timeout
                continue
            if not chunk:
                if buffer or not idle_ok:
                    raise errors.ProtocolError(f"truncated message: {len(buffer)} of {n} bytes, then end of stream")
                return None
            buffer += chunk
        return bytes(buffer)

    def _read_message(self) -> Message | None:
        header = self._read_exact(HEADER.size, idle_ok=True)
        if header is None:
            return None
        command, arg0, arg1, length, check = decode_header(header)
        data = b""
        if length:
            data = self._read_exact(length, idle_ok=False) or b""
        older = self.peer_version < A_VERSION_SKIP_CHECKSUM or (command == A_CNXN and arg0 < A_VERSION_SKIP_CHECKSUM)
        if older and check != checksum(data):
            raise errors.ProtocolError(f"bad checksum {check:08x} for a {COMMAND_NAMES.get(command, '?')} message")
        return Message(command, arg0, arg1, data)

    def _dispatch(self, m: Message) -> None:
        handler: Callable[[Message], None] | None = {
            A_CNXN: self._on_cnxn,
            A_OPEN: self._on_open,
            A_OKAY: self._on_okay,
            A_WRTE: self._on_wrte,
            A_CLSE: self._on_clse,
        }.get(m.command)
        if handler is None:
            log.debug("adbd endpoint %s: ignoring %s", self.endpoint.port, m.name)
            return
        handler(m)

    def _on_cnxn(self, m: Message) -> None:
        if m.arg0 < A_VERSION_MIN:
            raise errors.ProtocolError(f"CNXN with protocol version {m.arg0:08x}, older than {A_VERSION_MIN:08x}")
        if m.arg1 < 256:
            raise errors.ProtocolError(f"CNXN with a maximum payload of {m.arg1} bytes")
        self.peer_version = min(m.arg0, A_VERSION)
        self.peer_max_payload = min(m.arg1, MAX_PAYLOAD)
        if self.online:  # a reconnecting server: its old streams are gone
            self._close_streams()
        self.online = True
        self.online_once = True
        self.send(A_CNXN, A_VERSION, MAX_PAYLOAD, self.endpoint.banner())
        self.endpoint.attached(self)

    def _on_open(self, m: Message) -> None:
        if m.arg0 == 0 or m.arg1 != 0:
            log.debug("adbd endpoint %s: ignoring an OPEN with ids %d, %d", self.endpoint.port, m.arg0, m.arg1)
            return
        service = m.data.rstrip(b"\0")
        if not self.online or b"\0" in service or not service:
            self.send(A_CLSE, 0, m.arg0)
            return
        try:
            name = service.decode("utf-8")
        except UnicodeDecodeError:
            self.send(A_CLSE, 0, m.arg0)
            return
        stream = self._new_stream(remote_id=m.arg0)
        threading.Thread(target=self._serve_stream, args=(stream, name), name="virtual-adbd-stream",
                         daemon=True).start()

    def _on_okay(self, m: Message) -> None:
        stream = self._stream(m.arg1)
        if stream is None:
            return
        if not stream.remote_id:  # the answer to our OPEN
            stream.remote_id = m.arg0
            stream.may_write.set()
            stream.opened.set()
        elif stream.remote_id == m.arg0:
            stream.may_write.set()

    def _on_wrte(self, m: Message) -> None:
        stream = self._stream(m.arg1)
        if stream is None or stream.remote_id != m.arg0:
            if m.arg0:
                self._send_quietly(A_CLSE, 0, m.arg0)
            return
        if m.data:
            stream.inbound.put(m.data)
        else:
            stream.acknowledge()

    def _on_clse(self, m: Message) -> None:
        stream = self._stream(m.arg1)
        if stream is None or (stream.remote_id and m.arg0 and stream.remote_id != m.arg0):
            return
        self.forget(stream)
        stream.peer_closed()

    # --- a stream the server opened: the device service behind it ---

    def _serve_stream(self, stream: _Stream, service: str) -> None:
        try:
            device_stream = self.endpoint.open_service(service, self)
        except Exception as exc:
            if isinstance(exc, errors.MobileAgentError):
                log.debug("adbd endpoint %s: %r refused: %s", self.endpoint.port, service, exc)
            else:  # a bug in the device model: refuse the stream, keep serving, say so
                log.warning("adbd endpoint %s: opening %r failed", self.endpoint.port, service, exc_info=True)
            self.forget(stream)
            self._send_quietly(A_CLSE, 0, stream.remote_id)
            return
        writer = threading.Thread(target=self._feed_device, args=(stream, device_stream), name="virtual-adbd-in",
                                  daemon=True)
        try:
            stream.may_write.set()
            self.send(A_OKAY, stream.local_id, stream.remote_id)
            writer.start()
            self._pump_to_peer(stream, device_stream)
        except errors.MobileAgentError as exc:
            log.debug("adbd endpoint %s: stream %r ended: %s", self.endpoint.port, service, exc)
        except Exception:  # a bug in the device model's stream: end this stream, keep the connection
            log.warning("adbd endpoint %s: stream %r failed", self.endpoint.port, service, exc_info=True)
        finally:
            with contextlib.suppress(Exception):
                device_stream.close()
            with contextlib.suppress(errors.MobileAgentError):
                stream.send_close()
            stream.inbound.put(None)

    def _pump_to_peer(self, stream: _Stream, device_stream: Any) -> None:
        while not stream.closed.is_set() and not self.stopped.is_set():
            data = recv_device(device_stream, 0.25)
            if data is None:
                continue
            if not data:
                return
            stream.write(data)

    def _feed_device(self, stream: _Stream, device_stream: Any) -> None:
        while True:
            data = stream.inbound.get()
            if data is None:
                with contextlib.suppress(Exception):
                    device_stream.close()
                return
            try:
                device_stream.send(data)
            except Exception as exc:
                log.debug("adbd endpoint %s: the device stream refused data: %s", self.endpoint.port, exc)
                with contextlib.suppress(errors.MobileAgentError):
                    stream.send_close()
                return
            stream.acknowledge()

    # --- the end ---

    def _close_streams(self) -> None:
        with self._streams_lock:
            streams = list(self._streams.values())
            self._streams.clear()
        for stream in streams:
            stream.peer_closed()

    def stop(self) -> None:
        if self.stopped.is_set():
            return
        self.stopped.set()
        self.online = False
        self._close_streams()
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)
        with contextlib.suppress(OSError):
            self.sock.close()
        self.endpoint.detached(self)


class AdbdEndpoint:
    """The adbd front of one virtual device, listening on 127.0.0.1:``port``."""

    def __init__(self, device: ServedDevice, *, port: int = 0, io_timeout: float = 10.0,
                 listener: socket.socket | None = None,
                 stall_timeout: float = STALL_TIMEOUT) -> None:
        self.device = device
        self.io_timeout = io_timeout
        self.stall_timeout = stall_timeout
        listener = listener if listener is not None else bind_loopback(port)
        self.port: int = listener.getsockname()[1]
        self._connections: list[AdbdConnection] = []
        self._lock = threading.Lock()
        self._loop = AcceptLoop(listener, self._serve_connection, name=f"virtual-adbd-{self.port}",
                                connection_name="virtual-adbd-conn")
        self._loop.start()
        device.adbd_restart_listeners.append(self._adbd_restarted)

    def _adbd_restarted(self) -> None:
        """adbd restarts (`adb root`): its transports drop once the reply is out, and the adb
        server attaches the device again."""
        def kick() -> None:
            time.sleep(RESTART_DELAY)
            for conn in self.connections():
                conn.stop()
            self.device.adbd_restarted()

        threading.Thread(target=kick, name="virtual-adbd-restart", daemon=True).start()

    @classmethod
    def on_emulator_port(cls, device: ServedDevice, *, io_timeout: float = 10.0) -> AdbdEndpoint:
        """The first free odd port of 5555..5585, where an adb server looks for emulators."""
        listener = reserve_emulator_port()
        if listener is None:
            raise AddressInUse(f"every emulator port {ADBD_PORTS.start}..{ADBD_PORTS.stop - 1} is taken")
        return cls(device, io_timeout=io_timeout, listener=listener)

    @property
    def emulator_serial(self) -> str | None:
        """``emulator-<port - 1>`` when the port is one an adb server scans, else None."""
        return f"emulator-{self.port - 1}" if self.port in ADBD_PORTS else None

    def banner(self) -> bytes:
        return banner(device_properties(self.device))

    def open_service(self, service: str, conn: AdbdConnection) -> ByteStream:
        """The device service behind an OPEN; the connection is the way back for reverse rules
        (a device-side connection to one is OPENed toward this adb server)."""
        return self.device.open_service(service, host=conn.open_host)

    def connections(self) -> list[AdbdConnection]:
        with self._lock:
            return [c for c in self._connections if c.online]

    def attached(self, conn: AdbdConnection) -> None:
        log.info("adbd endpoint %s: adb server attached", self.port)

    def detached(self, conn: AdbdConnection) -> None:
        with self._lock:
            if conn in self._connections:
                self._connections.remove(conn)
        if conn.online_once:
            dropped = drop_reverse_rules(self.device, conn.open_host)
            if dropped:
                log.info("adbd endpoint %s: the transport went, and its reverse rules %s", self.port, dropped)

    def _serve_connection(self, sock: socket.socket) -> None:
        conn = AdbdConnection(self, sock)
        with self._lock:
            if self._loop.stopped.is_set():
                sock.close()
                return
            self._connections.append(conn)
        conn.run()

    def stop(self) -> None:
        self._loop.stopped.set()
        if self._adbd_restarted in self.device.adbd_restart_listeners:
            self.device.adbd_restart_listeners.remove(self._adbd_restarted)
        self._loop.close()
        with self._lock:
            connections = list(self._connections)
        for conn in connections:
            conn.stop()
        self._loop.join(2, connections=True)
