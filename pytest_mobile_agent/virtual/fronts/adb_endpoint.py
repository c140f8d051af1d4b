"""The virtual device's adb-server front: the smart-socket protocol of the real adb server.

Each client connection sends requests framed as 4 hex digits of length and the text; the server
answers ``OKAY`` or ``FAIL`` and a length-prefixed message, as Google's server does (texts checked
against Debian's adb 29 server: ``device 'X' not found``, ``no devices/emulators found``,
``more than one device/emulator``, ``unknown host service``, ``device offline (no transport)``).

Host services: ``host:version`` (``0029``), ``host:devices``, ``host:devices-l``,
``host:track-devices`` (the list, then again at each change), ``host:features``,
``host:host-features``, ``get-state``, ``get-serialno``, ``host:transport:SERIAL``,
``host:transport-any``, ``host:transport-id:N``, ``host:tport:serial:SERIAL`` (``tport`` answers the
8 byte transport id), forwards (``forward:``, ``forward:norebind:``, ``killforward:``,
``killforward-all``, ``list-forward``; two statuses and the bound port for ``tcp:0``) and
``host:kill``, under the ``host:``, ``host-serial:SERIAL:``, ``host-transport-id:N:``, ``host-usb:``
and ``host-local:`` prefixes. After a transport is chosen, the next request is a device service,
passed to ``device.open_service``; a service the device refuses is answered ``FAIL closed``, as the
real server answers when adbd meets the OPEN with CLSE.
"""

from __future__ import annotations

import contextlib
import logging
import re
import socket
import struct
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pytest_mobile_agent import errors
from pytest_mobile_agent.adb.serials import parse_host_service
from pytest_mobile_agent.adb.wire import (
    OKAY,
    encode_fail,
    encode_length_prefixed,
    parse_hex_length,
)
from pytest_mobile_agent.virtual.fronts.adbd_endpoint import (
    FEATURES,
    STALL_TIMEOUT,
    device_properties,
    drop_reverse_rules,
    recv_device,
    wait_readable,
)
from pytest_mobile_agent.virtual.fronts.loopback import AcceptLoop
from pytest_mobile_agent.virtual.fronts.seam import ServedDevice
from pytest_mobile_agent.virtual.kernel.numbers import is_decimal

log = logging.getLogger("pytest_mobile_agent.virtual")

SERVER_VERSION = 41  # ADB_SERVER_VERSION of adb 1.0.41 (platform-tools 29 and later): "0029"
# The server's own features (``host:host-features``): adbd's list, in its order, less those that name
# what only the device end here does (app tracking, the proto device tracker, devraw, app_info and the
# sync v2 requests); one list, so the two fronts cannot drift apart.
DEVICE_ONLY_FEATURES = frozenset({
    "track_app",
    "devicetracker_proto_format",
    "devraw",
    "app_info",
    "sendrecv_v2",
    "sendrecv_v2_dry_run_send",
})
HOST_FEATURES = tuple(feature for feature in FEATURES if feature not in DEVICE_ONLY_FEATURES)
NO_DEVICES = "no devices/emulators found"
MORE_THAN_ONE = "more than one device/emulator"
UNKNOWN_HOST_SERVICE = "unknown host service"
NO_TRANSPORT = "device offline (no transport)"
CLOSED = "closed"
MAX_REQUEST = 0xFFFF


@dataclass(frozen=True)
class Transport:
    """A device as the server lists it."""

    serial: str
    device: ServedDevice
    transport_id: int

    def devices_l_line(self) -> str:
        """``emulator-5554          device product:... model:... device:... transport_id:1``."""
        props = device_properties(self.device)
        line = f"{self.serial:<22} device"
        for label, key, sanitize in (
            ("product:", "ro.product.name", False),
            ("model:", "ro.product.model", True),
            ("device:", "ro.product.device", False),
        ):
            value = props.get(key, "")
            if value:
                line += f" {label}{re.sub(r'[^A-Za-z0-9_.-]', '_', value) if sanitize else value}"
        return f"{line} transport_id:{self.transport_id}"


class ServiceFailed(Exception):
    """A request the server answers with FAIL and this text."""


# --- streams ---------------------------------------------------------------------------------------


class SocketStream:
    """A host socket with the DeviceStream shape (``send``, ``recv(timeout)``, ``close``)."""

    def __init__(self, sock: socket.socket, io_timeout: float = 10.0) -> None:
        self._sock = sock
        self._io_timeout = io_timeout
        sock.settimeout(io_timeout)  # the write deadline; reads poll (see wait_readable)

    def send(self, data: bytes) -> None:
        try:
            self._sock.sendall(data)
        except OSError as exc:
            raise errors.wrap_os_error(exc, "writing to a host socket", self._io_timeout) from exc

    sendall = send

    def recv(self, timeout: float | None = None) -> bytes:
        try:
            if not wait_readable(self._sock, timeout):
                raise errors.Timeout("reading a host socket", timeout)
            return self._sock.recv(65536)
        except OSError:
            return b""

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self._sock.shutdown(socket.SHUT_RDWR)
        with contextlib.suppress(OSError):
            self._sock.close()


def connect_host(spec: str, timeout: float | None = None) -> SocketStream:
    """The host side of a reverse rule, reached directly: ``tcp:PORT`` or ``localabstract:NAME``."""
    wait = 2.0 if timeout is None else timeout
    try:
        if spec.startswith("tcp:"):
            sock = socket.create_connection(("127.0.0.1", int(spec[4:])), timeout=wait)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        elif spec.startswith("localabstract:"):
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.settimeout(wait)
            try:
                sock.connect("\0" + spec[len("localabstract:") :])
            except OSError:
                sock.close()
                raise
        else:
            raise errors.Closed(f"cannot connect to {spec!r} on the host")
    except (OSError, ValueError) as exc:
        raise errors.Closed(f"cannot connect to {spec!r} on the host: {exc}") from exc
    return SocketStream(sock)


def bridge(sock: socket.socket, device_stream: Any, stopped: threading.Event,
           stall_timeout: float = STALL_TIMEOUT) -> None:
    """Copy bytes both ways until either side ends; a client that goes away closes the stream.

    The socket's timeout is the write deadline: a client that takes none of the output for that
    long is dropped (a real adb server and adbd would wait for ever). Reads poll, so both threads
    share the socket safely.
    """
    sock.settimeout(stall_timeout)

    def client_to_device() -> None:
        # Reads until the client's end of stream, discarding once the device side is gone: a socket
        # closed with unread bytes sends RST, which can cost the client output it has not read yet.
        device_open = True
        try:
            while not stopped.is_set():
                if not wait_readable(sock, 0.25):
                    continue
                data = sock.recv(256 * 1024)
                if not data:
                    break
                if device_open:
                    try:
                        device_stream.send(data)
                    except Exception as exc:
                        log.debug("adb endpoint: the device stream ended: %s", exc)
                        device_open = False
        except OSError as exc:  # the client went away
            log.debug("adb endpoint: client to device ended: %s", exc)
        finally:
            with contextlib.suppress(Exception):
                device_stream.close()

    upstream = threading.Thread(target=client_to_device, name="virtual-adb-up", daemon=True)
    upstream.start()
    try:
        while not stopped.is_set():
            data = recv_device(device_stream, 0.25)
            if data is None:
                if not upstream.is_alive():
                    # The client is gone; the device side has been closed and only drains.
                    data = recv_device(device_stream, 0.25)
                    if data is None:
                        break
                continue
            if not data:
                break
            sock.sendall(data)
    except Exception as exc:
        log.debug("adb endpoint: device to client ended: %s", exc)
    finally:
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_WR)  # the output ends; the client's last bytes are still read
        with contextlib.suppress(Exception):
            device_stream.close()
        upstream.join(timeout=1.0)
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RD)


# --- forward rules ---------------------------------------------------------------------------------


class ForwardRule:
    """One ``adb forward``: a host listener whose connections open ``remote`` on the device."""

    def __init__(self, transport: Transport, local: str, remote: str, listener: socket.socket) -> None:
        self.transport = transport
        self.local = local
        self.remote = remote
        self._loop = AcceptLoop(listener, self._serve, name=f"virtual-forward-{local}",
                                connection_name="virtual-forward-conn", nodelay=False)
        self._stopped = self._loop.stopped
        self._loop.start()

    @property
    def port(self) -> int:
        return self._loop.port

    def _serve(self, sock: socket.socket) -> None:
        try:
            device_stream = self.transport.device.open_service(self.remote)
        except Exception as exc:
            log.debug("forward %s -> %s refused: %s", self.local, self.remote, exc)
            sock.close()
            return
        bridge(sock, device_stream, self._stopped)
        sock.close()

    def stop(self) -> None:
        self._loop.close()
        self._loop.join(1.0)


def _listen_local(local: str) -> socket.socket:
    """The host listener for a forward's local side (``tcp:PORT``, ``localabstract:NAME``)."""
    if local.startswith("tcp:"):
        port_text = local[4:]
        if not is_decimal(port_text) or int(port_text) > 65535:
            raise ServiceFailed(f"cannot bind listener: bad port '{port_text}'")
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        address: Any = ("127.0.0.1", int(port_text))
    elif local.startswith("localabstract:"):
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        address = "\0" + local[len("localabstract:") :]
    else:
        raise ServiceFailed(f"cannot bind listener: unsupported local '{local}'")
    try:
        sock.bind(address)
        sock.listen(16)
    except OSError as exc:
        sock.close()
        raise ServiceFailed(f"cannot bind listener: cannot bind to {local}: {exc.strerror}") from exc
    return sock


# --- the server ------------------------------------------------------------------------------------


class AdbServerEndpoint:
    """An adb server on 127.0.0.1 (a free port by default) serving the lab's virtual devices."""

    def __init__(self, *, port: int = 0, io_timeout: float = 10.0, on_kill: Callable[[], None] | None = None) -> None:
        self.io_timeout = io_timeout
        self._transports: list[Transport] = []
        self._forwards: list[ForwardRule] = []
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._on_kill = on_kill
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            listener.bind(("127.0.0.1", port))
            listener.listen(64)
        except OSError:
            listener.close()
            raise
        self.port: int = listener.getsockname()[1]
        self._loop = AcceptLoop(listener, self._serve_client, name=f"virtual-adb-{self.port}",
                                connection_name="virtual-adb-client")
        self._stopped = self._loop.stopped
        self._loop.start()

    # --- devices ---

    def add_device(self, serial: str, device: ServedDevice) -> Transport:
        with self._lock:
            transport = Transport(serial, device, max((t.transport_id for t in self._transports), default=0) + 1)
            self._transports.append(transport)
        return transport

    def remove_device(self, serial: str) -> None:
        """The device went away (an emulator killed): it leaves the list."""
        with self._lock:
            self._transports = [t for t in self._transports if t.serial != serial]

    def transports(self) -> list[Transport]:
        with self._lock:
            return list(self._transports)

    def _select(self, selector: str) -> Transport:
        """A transport by ``serial:S``, ``id:N`` or ``any``; ServiceFailed with the server's text."""
        transports = self.transports()
        kind, _, value = selector.partition(":")
        if kind == "serial":
            for transport in transports:
                if _matches_serial(transport.serial, value):
                    return transport
            raise ServiceFailed(f"device '{value}' not found")
        if kind == "id":
            for transport in transports:
                if str(transport.transport_id) == value:
                    return transport
            raise ServiceFailed(f"no device with transport id '{value}'")
        if not transports:
            raise ServiceFailed(NO_DEVICES)
        if len(transports) > 1:
            raise ServiceFailed(MORE_THAN_ONE)
        return transports[0]

    # --- connections ---

    def _serve_client(self, sock: socket.socket) -> None:
        sock.settimeout(self.io_timeout)  # the write deadline; reads poll
        try:
            self._serve_requests(sock)
        except (errors.MobileAgentError, OSError) as exc:
            log.debug("adb endpoint %s: client ended: %s", self.port, exc)
        except Exception:  # a bug behind a request: drop this client, keep serving the others
            log.warning("adb endpoint %s: a client's request failed", self.port, exc_info=True)
        finally:
            with contextlib.suppress(OSError):
                sock.close()

    def _read_request(self, sock: socket.socket) -> str | None:
        """One length-prefixed request; None when the client closes first or sends garbage."""
        head = _read_exact(sock, 4, self.io_timeout, self._stopped)
        if head is None:
            return None
        try:
            length = parse_hex_length(head)
        except errors.ProtocolError as exc:
            log.debug("adb endpoint %s: bad request header: %s", self.port, exc)
            return None
        if length == 0:
            return None
        body = _read_exact(sock, length, self.io_timeout, self._stopped)
        if body is None:
            return None
        return body.decode("utf-8", "replace")

    def _serve_requests(self, sock: socket.socket) -> None:
        transport: Transport | None = None
        while not self._stopped.is_set():
            request = self._read_request(sock)
            if request is None:
                return
            if not request.startswith("host"):
                self._open_device_service(sock, transport, request)
                return
            if _split_prefix(request)[1] in ("track-devices", "track-devices-l"):
                self._track_devices(sock, long=request.endswith("-l"))
                return
            try:
                reply, chosen, done = self._host_request(request, transport)
            except ServiceFailed as failure:
                sock.sendall(encode_fail(str(failure)))
                return
            transport = chosen or transport
            if reply:
                sock.sendall(reply)
            if _split_prefix(request)[1] == "kill":
                self._kill()
            if done:
                return

    def _open_device_service(self, sock: socket.socket, transport: Transport | None, service: str) -> None:
        if transport is None:
            sock.sendall(encode_fail(NO_TRANSPORT))
            return
        try:
            # The way back for reverse rules: the host side is this machine, reached directly.
            device_stream = transport.device.open_service(service, host=connect_host)
        except Exception as exc:
            if isinstance(exc, errors.MobileAgentError):
                log.debug("adb endpoint %s: %s refused %r: %s", self.port, transport.serial, service, exc)
            else:  # a bug in the device model: refuse the stream, keep serving, say so
                log.warning("adb endpoint %s: opening %r on %s failed", self.port, service, transport.serial,
                            exc_info=True)
            sock.sendall(encode_fail(CLOSED))  # what the real server says when adbd answers CLSE
            return
        sock.sendall(OKAY)
        bridge(sock, device_stream, self._stopped)

    # --- host services ---

    def _host_request(self, request: str, current: Transport | None = None) -> tuple[bytes, Transport | None, bool]:
        """(reply bytes, the transport chosen, whether the connection ends); FAIL as ServiceFailed.

        A ``host:`` request after a transport was chosen on the connection (adb 29 sends
        ``host:tport:any`` then ``host:forward:...``) applies to that transport.
        """
        selector, service = _split_prefix(request)
        if service is None:
            raise ServiceFailed(UNKNOWN_HOST_SERVICE)
        if current is not None and request.startswith("host:"):
            selector = f"id:{current.transport_id}"
        # Services that pick a transport for the rest of the connection.
        for prefix, chosen in (("transport:", "serial:"), ("transport-id:", "id:"), ("tport:serial:", "serial:"),
                               ("tport:transport-id:", "id:")):
            if service.startswith(prefix):
                transport = self._select(chosen + service[len(prefix) :])
                extra = struct.pack("<Q", transport.transport_id) if service.startswith("tport:") else b""
                return OKAY + extra, transport, False
        if service in ("transport-any", "transport-usb", "transport-local", "tport:any", "tport:usb", "tport:local"):
            transport = self._select("any")
            extra = struct.pack("<Q", transport.transport_id) if service.startswith("tport:") else b""
            return OKAY + extra, transport, False
        return self._simple_host_service(selector, service), None, True

    def _simple_host_service(self, selector: str, service: str) -> bytes:
        if service == "version":
            return OKAY + encode_length_prefixed(b"%04x" % SERVER_VERSION)
        if service in ("devices", "devices-l"):
            return OKAY + encode_length_prefixed(self._device_list(long=service == "devices-l").encode())
        if service == "host-features":
            return OKAY + encode_length_prefixed(",".join(HOST_FEATURES).encode())
        if service == "features":
            self._select(selector)  # every device here advertises adbd's features
            return OKAY + encode_length_prefixed(",".join(FEATURES).encode())
        if service == "get-state":
            self._select(selector)
            return OKAY + encode_length_prefixed(b"device")
        if service == "get-serialno":
            return OKAY + encode_length_prefixed(self._select(selector).serial.encode())
        if service == "get-devpath":
            self._select(selector)
            return OKAY + encode_length_prefixed(b"unknown")
        if service.startswith("wait-for-"):
            return self._wait_for(selector)
        if service.startswith("emulator:"):
            return b""  # an emulator announcing its port: the real server answers nothing and closes
        if service == "kill":
            return OKAY  # _serve_requests stops the server once the reply is out
        forward = self._forward_service(selector, service)
        if forward is not None:
            return forward
        raise ServiceFailed(UNKNOWN_HOST_SERVICE)

    def _wait_for(self, selector: str) -> bytes:
        deadline = time.monotonic() + self.io_timeout
        while True:
            try:
                self._select(selector)
                return OKAY + OKAY
            except ServiceFailed:
                if time.monotonic() > deadline or self._stopped.wait(0.1):
                    raise

    def _track_devices(self, sock: socket.socket, *, long: bool) -> None:
        """``host:track-devices``: the list now and again at each change, until the client leaves."""
        sent: str | None = None
        sock.sendall(OKAY)
        while not self._stopped.is_set():
            listing = self._device_list(long=long)
            if listing != sent:
                sock.sendall(encode_length_prefixed(listing.encode()))
                sent = listing
            if wait_readable(sock, 0.25) and not sock.recv(4096):
                return  # the client closed its end

    def _device_list(self, *, long: bool) -> str:
        lines = [t.devices_l_line() if long else f"{t.serial}\tdevice" for t in self.transports()]
        return "".join(line + "\n" for line in lines)

    def _forward_service(self, selector: str, service: str) -> bytes | None:
        if service == "list-forward":
            with self._lock:
                rules = list(self._forwards)
            text = "".join(f"{r.transport.serial} {r.local} {r.remote}\n" for r in rules)
            return OKAY + encode_length_prefixed(text.encode())
        if service == "killforward-all":
            with self._lock:
                rules, self._forwards = self._forwards, []
            for rule in rules:
                rule.stop()
            return OKAY + OKAY
        if service.startswith("killforward:"):
            transport = self._select(selector)
            local = service[len("killforward:") :]
            if not local or ";" in local:
                raise ServiceFailed(f"bad killforward: {local}")
            return self._remove_forward(transport, local)
        if service.startswith("forward:"):
            transport = self._select(selector)
            return self._install_forward(transport, service[len("forward:") :])
        return None

    def _install_forward(self, transport: Transport, spec: str) -> bytes:
        rebind = True
        if spec.startswith("norebind:"):
            rebind, spec = False, spec[len("norebind:") :]
        pieces = spec.split(";")
        if len(pieces) != 2 or not pieces[0] or not pieces[1] or pieces[1].startswith("*"):
            raise ServiceFailed(f"bad forward: {spec}")
        local, remote = pieces
        with self._lock:
            existing = next((r for r in self._forwards if r.local == local), None)
            if existing is not None:
                if not rebind:
                    raise ServiceFailed("cannot rebind existing socket")
                self._forwards.remove(existing)
        if existing is not None:
            existing.stop()
        listener = _listen_local(local)
        if local == "tcp:0":
            local = f"tcp:{listener.getsockname()[1]}"
        rule = ForwardRule(transport, local, remote, listener)
        with self._lock:
            self._forwards.append(rule)
        reply = OKAY + OKAY
        if spec.split(";")[0] == "tcp:0":
            reply += encode_length_prefixed(str(rule.port).encode())
        return reply

    def _remove_forward(self, transport: Transport, local: str) -> bytes:
        with self._lock:
            rule = next((r for r in self._forwards if r.local == local), None)
            if rule is None:
                raise ServiceFailed(f"listener '{local}' not found")
            self._forwards.remove(rule)
        rule.stop()
        return OKAY + OKAY

    def forwards(self) -> list[tuple[str, str, str]]:
        with self._lock:
            return [(r.transport.serial, r.local, r.remote) for r in self._forwards]

    # --- the end ---

    def _kill(self) -> None:
        self.stop()
        if self._on_kill is not None:
            self._on_kill()

    def stop(self) -> None:
        if self._stopped.is_set():
            return
        self._loop.close()
        with self._lock:
            rules, self._forwards = self._forwards, []
        for rule in rules:
            rule.stop()
        self._loop.shut_connections()
        for transport in self.transports():  # adbd drops the rules of a transport that went
            drop_reverse_rules(transport.device, connect_host)
        self._loop.join(2.0)
        self._done.set()

    @property
    def stopped(self) -> bool:
        """True once the server has stopped listening."""
        return self._done.is_set()


def _matches_serial(serial: str, target: str) -> bool:
    """Whether `target` names the transport `serial`: the same text, or, for a network transport
    (`HOST:PORT`, from `adb connect`), the same host and port, a `tcp:`/`udp:` prefix ignored and
    the port defaulting to the transport's, as atransport::MatchesTarget (AOSP
    packages/modules/adb transport.cpp, with android::base::ParseNetAddress) matches them."""
    if serial == target:
        return True
    ours = _net_address(serial, None)
    if ours is None:
        return False
    wanted = target[4:] if target.startswith(("tcp:", "udp:")) else target
    return _net_address(wanted, ours[1]) == ours


def _net_address(text: str, default_port: int | None) -> tuple[str, int] | None:
    """(host, port) of `HOST[:PORT]` or `[IPV6][:PORT]`; None without a port or with a bad one."""
    if text.startswith("["):
        host, close, rest = text[1:].partition("]")
        if not close or (rest and not rest.startswith(":")):
            return None
        port_text = rest[1:] if rest else ""
    elif text.count(":") > 1:
        host, port_text = text, ""
    else:
        host, _, port_text = text.partition(":")
    if not host:
        return None
    if not port_text:
        return (host, default_port) if default_port is not None else None
    return (host, int(port_text)) if is_decimal(port_text) and 0 < int(port_text) < 65536 else None


def _split_prefix(request: str) -> tuple[str, str | None]:
    """(transport selector, service) for ``host:``, ``host-serial:S:``, ``host-transport-id:N:``,
    ``host-usb:``, ``host-local:``; (.., None) for anything else."""
    if request.startswith("host:"):
        return "any", request[5:]
    if request.startswith(("host-usb:", "host-local:")):
        return "any", request.split(":", 1)[1]
    if request.startswith("host-transport-id:"):
        ident, sep, service = request[len("host-transport-id:") :].partition(":")
        return f"id:{ident}", service if sep else None
    if request.startswith("host-serial:"):
        split = parse_host_service(request[len("host-serial:") :])  # as Google's server splits it
        if split is None:
            return "any", None
        serial, after = split
        return (f"serial:{serial}" if serial else "any"), after
    return "any", None


def _read_exact(sock: socket.socket, n: int, timeout: float, stopped: threading.Event) -> bytes | None:
    """n bytes, or None at the end of the stream, a stop, or a request left unfinished past timeout."""
    buffer = bytearray()
    deadline = time.monotonic() + timeout
    while len(buffer) < n:
        try:
            if not wait_readable(sock, 0.25):
                if stopped.is_set() or time.monotonic() > deadline:
                    return None
                continue
            chunk = sock.recv(n - len(buffer))
        except OSError:
            return None
        if not chunk:
            return None
        buffer += chunk
    return bytes(buffer)
