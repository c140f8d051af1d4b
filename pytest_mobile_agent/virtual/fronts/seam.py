"""What a front reaches of the device it serves (virtual/device.py is one; the fronts' tests use a
scripted one): the service seam, the product properties the banner and `devices -l` carry, the
reverse rules a transport that goes takes with it, and adbd's restarts (`adb root`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Protocol

from pytest_mobile_agent.virtual.adbd.daemon import HostConnector, ReverseRule
from pytest_mobile_agent.virtual.kernel.streams import ByteStream


class ServedDevice(Protocol):
    @property
    def properties(self) -> Mapping[str, str]: ...

    @property
    def reverse_rules(self) -> Mapping[str, ReverseRule]: ...

    @property
    def adbd_restart_listeners(self) -> list[Callable[[], None]]: ...

    def adbd_restarted(self) -> None: ...

    def open_service(self, service: str, peer_uid: int | None = None, *,
                     host: HostConnector | None = None) -> ByteStream:
        """The device side of the service an OPEN names; errors.Closed when the device refuses it."""
        ...
