"""Fixtures of the virtual device's tests: a fresh VirtualDevice, shell v2 clients on its seam."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from pytest_mobile_agent.virtual.device import VirtualDevice
from tests.support.virtual_shell import ShellClient


@pytest.fixture
def vdev() -> Iterator[VirtualDevice]:
    dev = VirtualDevice()
    yield dev
    dev.close()


@pytest.fixture
def shell(vdev: VirtualDevice) -> Iterator[type[ShellClient]]:
    opened: list[ShellClient] = []

    class Bound(ShellClient):
        def __init__(self, command: str, *, pty: bool = False) -> None:
            super().__init__(vdev, command, pty=pty)
            opened.append(self)

    yield Bound  # type: ignore[misc]
    for client in opened:
        client.close()
