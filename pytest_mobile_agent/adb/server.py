"""The local adb server: its address, host services, and target discovery.

The address is 127.0.0.1:5037, or the port in ANDROID_ADB_SERVER_PORT, or the `tcp:HOST:PORT` in
ADB_SERVER_SOCKET (explicit arguments win over both: `adb/address.py`). One connection per request,
a 2 s connect deadline and a 10 s read/write deadline. The adb binary is never spawned: when nothing listens, the
error names the address and says to run `adb start-server`.
"""

from __future__ import annotations

import dataclasses
import logging
import time

from pytest_mobile_agent.adb.address import address_from_env
from pytest_mobile_agent.adb.connection import AdbConnection
from pytest_mobile_agent.adb.device import Device
from pytest_mobile_agent.adb.targets import (
    DeviceEntry,
    Target,
    facts_from_getprop,
    getprop_command,
    parse_devices_l,
    target_from,
)
from pytest_mobile_agent.errors import MobileAgentError, ProtocolError

log = logging.getLogger("pytest_mobile_agent.adb")

CONNECT_TIMEOUT = 2.0
IO_TIMEOUT = 10.0
CALL_TIMEOUT = 30.0
"""Seconds a host request (version, devices, a forward, a transport switch) may take in all: a
peer that sends a byte now and then keeps each read inside `io_timeout`, never the whole call."""


@dataclasses.dataclass(frozen=True)
class AdbServer:
    """A client of one adb server. Immutable: `with_io_timeout` returns a copy."""

    host: str | None = None
    port: int | None = None
    connect_timeout: float = CONNECT_TIMEOUT
    io_timeout: float = IO_TIMEOUT
    call_timeout: float = CALL_TIMEOUT

    def __post_init__(self) -> None:
        if self.host is None or self.port is None:
            env_host, env_port = address_from_env()
            object.__setattr__(self, "host", env_host if self.host is None else self.host)
            object.__setattr__(self, "port", env_port if self.port is None else self.port)

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"

    def with_io_timeout(self, io_timeout: float) -> AdbServer:
        return dataclasses.replace(self, io_timeout=io_timeout)

    def connect(self, *, deadline: float | None = None) -> AdbConnection:
        assert self.host is not None and self.port is not None
        return AdbConnection.open(self.host, self.port, connect_timeout=self.connect_timeout,
                               io_timeout=self.io_timeout, deadline=deadline)

    def call(self) -> AdbConnection:
        """A connection for one host request: its reads and writes end within `call_timeout` in all."""
        return self.connect(deadline=time.monotonic() + self.call_timeout).bound(self.call_timeout)

    # --- host services ---------------------------------------------------------------------------

    def _query(self, request: str) -> bytes:
        """A host request answered with OKAY and a length-prefixed payload."""
        with self.call() as conn:
            conn.request(request)
            conn.read_status(request)
            return conn.read_length_prefixed(request)

    def version(self) -> int:
        reply = self._query("host:version")
        text = reply.decode("ascii", "replace")
        try:
            return int(text, 16)
        except ValueError:
            raise ProtocolError(f"host:version: expected a hex version, got {reply!r}") from None

    def devices(self) -> list[DeviceEntry]:
        """Every target the server knows, in every state."""
        return parse_devices_l(self._query("host:devices-l").decode("utf-8", "replace"))

    def targets(self) -> list[Target]:
        """The targets with getprop facts (online) or advice (any other state)."""
        return [self._target(entry) for entry in self.devices()]

    def _target(self, entry: DeviceEntry) -> Target:
        if not entry.online:
            return target_from(entry)
        try:
            output = self.device(entry.serial).shell(getprop_command())
            if output.exit_code != 0:
                raise ValueError(
                    f"getprop exited with {output.exit_code}: {output.stderr.decode('utf-8', 'replace').strip()}"
                )
            facts = facts_from_getprop(entry.serial, output.text())
        except (MobileAgentError, ValueError) as exc:
            log.warning("cannot read the properties of %s: %s", entry.serial, exc)
            return target_from(entry, properties_error=str(exc))
        return target_from(entry, facts)

    def device(self, serial: str) -> Device:
        return Device(self, serial)

    def kill(self) -> None:
        """host:kill: the server answers OKAY and exits."""
        with self.call() as conn:
            conn.request("host:kill")
            conn.read_status("host:kill")
