"""adbd's `reverse:` services on the virtual device (adb.cpp's handle_forward_request, device side).

* `reverse:forward:[norebind:]REMOTE;LOCAL`: adbd listens on REMOTE on the device
  (`localabstract:NAME`, `tcp:PORT`, `tcp:0` for a free port) and replies `OKAY` (plus the port as
  a length-prefixed string for `tcp:0`). An existing rule for REMOTE is pointed at the new LOCAL,
  unless `norebind:` ("cannot rebind existing socket"). A REMOTE some process already listens on
  fails with "cannot bind listener: Address already in use"; an unknown one with "cannot bind
  listener: unknown socket specification:REMOTE"; a malformed request with "bad forward: ...".
* `reverse:killforward:REMOTE`: `OKAY`, or "listener 'REMOTE' not found".
* `reverse:killforward-all`: `OKAY`.
* `reverse:list-forward`: the length-prefixed list, one `<transport> REMOTE LOCAL` line per rule
  (adbd's transport name for the host connection, `host-N`).

The device writes these bytes and closes the stream, as adbd does (its reply socket is gone once
handled); the adb server adds its own OKAY in front for the client. A connection to REMOTE is
joined to `host(LOCAL)` (the connector the front gave open_service), on two daemon threads, which
end when either side closes; with no connector, or when it fails, the device-side connection is
closed, as adbd closes it when the host side cannot be opened.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from pytest_mobile_agent import errors
from pytest_mobile_agent.adb.wire import encode_fail, encode_length_prefixed
from pytest_mobile_agent.virtual.adbd.daemon import Adbd, HostConnector, ReverseRule
from pytest_mobile_agent.virtual.kernel.numbers import is_decimal
from pytest_mobile_agent.virtual.kernel.sockets import AddressInUse
from pytest_mobile_agent.virtual.kernel.streams import (
    PLAIN,
    DeviceStream,
    Kernel,
    Pipe,
    _deadline,
    pump,
)

log = logging.getLogger("pytest_mobile_agent.virtual")

OKAY = b"OKAY"


class ReplyStream:
    """A service that writes its reply and closes: recv gives the bytes, then b""."""

    def __init__(self, kernel: Kernel, reply: bytes, label: str) -> None:
        self.kernel = kernel
        self.label = label
        self._pipe = Pipe(self.kernel, 1 << 30)
        self._pipe.readers = 1
        self._pipe.buffer += reply
        self._closed = False

    @property
    def closed(self) -> bool:
        return self._closed

    def send(self, data: bytes) -> None:
        if self._closed:
            raise errors.Closed(f"{self.label}: send on a closed stream")

    sendall = send

    def recv(self, timeout: float | None = None) -> bytes:
        if self._closed:
            return b""
        data = self._pipe.read(256 * 1024, PLAIN, _deadline(timeout))
        return data or b""

    def close(self) -> None:
        self._closed = True


def reverse_service(adbd: Adbd, command: str, connector: HostConnector | None = None) -> ReplyStream:
    return ReplyStream(adbd.system.kernel, handle_reverse(adbd, command, connector), f"reverse:{command}")


def handle_reverse(adbd: Adbd, command: str, connector: HostConnector | None = None) -> bytes:
    """The bytes adbd writes for one reverse request."""
    if command == "list-forward":
        lines = "".join(f"{adbd.transport_name} {rule.remote} {rule.local}\n" for rule in adbd.reverse_rules.values())
        return encode_length_prefixed(lines.encode())
    if command == "killforward-all":
        for remote in list(adbd.reverse_rules):
            _remove(adbd, remote)
        return OKAY
    if command.startswith("killforward:"):
        remote = command[len("killforward:"):]
        if not remote or ";" in remote:
            return encode_fail(f"bad killforward: {remote}")
        if remote not in adbd.reverse_rules:
            return encode_fail(f"listener '{remote}' not found")
        _remove(adbd, remote)
        return OKAY
    if command.startswith("forward:"):
        rest = command[len("forward:"):]
        no_rebind = rest.startswith("norebind:")
        if no_rebind:
            rest = rest[len("norebind:"):]
        pieces = rest.split(";")
        if len(pieces) != 2 or not pieces[0] or not pieces[1] or pieces[1].startswith("*"):
            return encode_fail(f"bad forward: {rest}")
        return _install(adbd, pieces[0], pieces[1], no_rebind, connector)
    return encode_fail("not a reverse forwarding command")


def _remove(adbd: Adbd, remote: str) -> None:
    rule = adbd.reverse_rules.pop(remote, None)
    if rule is not None:
        rule.listener.close()


def _install(adbd: Adbd, remote: str, local: str, no_rebind: bool, connector: HostConnector | None) -> bytes:
    existing = adbd.reverse_rules.get(remote)
    if existing is not None:
        if no_rebind:
            return encode_fail("cannot rebind existing socket")
        existing.local = local
        existing.connector = connector or existing.connector
        return OKAY
    cell = {"name": remote}
    handler = _connector(adbd, cell)
    sockets = adbd.system.sockets
    try:
        if remote.startswith("localabstract:"):
            listener = sockets.listen_abstract(remote[len("localabstract:"):], adbd.process.pid, on_connect=handler)
        elif remote.startswith("tcp:"):
            port_text = remote[4:]
            if not is_decimal(port_text.lstrip("-")):
                return encode_fail(f"cannot bind listener: failed to parse address: '{port_text}'")
            port = int(port_text)
            if not 0 <= port <= 65535:
                return encode_fail(f"cannot bind listener: bad port number '{port}'")
            listener = sockets.listen_tcp(port, adbd.process.pid, on_connect=handler)
        else:
            return encode_fail(f"cannot bind listener: unknown socket specification:{remote}")
    except AddressInUse:
        return encode_fail("cannot bind listener: Address already in use")
    except errors.InvalidArgument as exc:
        return encode_fail(f"cannot bind listener: {exc.message}")
    name = remote
    reply = OKAY
    if remote.startswith("tcp:") and int(remote[4:]) == 0:
        name = f"tcp:{listener.port}"
        reply += encode_length_prefixed(str(listener.port).encode())
    cell["name"] = name
    adbd.reverse_rules[name] = ReverseRule(name, local, listener, connector)
    return reply


def _connector(adbd: Adbd, cell: dict[str, str]) -> Callable[[DeviceStream, int], None]:
    """adbd's side of a connection to a reverse listener: open LOCAL on the host and join them."""

    def join(server_end: DeviceStream) -> None:
        rule = adbd.reverse_rules.get(cell["name"])
        connector = (rule.connector if rule is not None else None) or adbd.host_connector()
        if connector is None or rule is None:
            server_end.close()
            return
        try:
            host_stream = connector(rule.local)
        except Exception as exc:  # noqa: BLE001 - the host side refused: adbd closes the device side
            log.info("reverse %s -> %s: the host side failed: %s", rule.remote, rule.local, exc)
            server_end.close()
            return
        pump(server_end, host_stream, name=f"reverse {rule.remote}->host")
        pump(host_stream, server_end, name=f"reverse host->{rule.remote}")

    def on_connect(server_end: DeviceStream, peer_uid: int) -> None:
        threading.Thread(target=join, args=(server_end,), name=f"reverse {cell['name']}", daemon=True).start()

    return on_connect
