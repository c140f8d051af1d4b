"""The fixtures that carry the driver (first version: the target, the adb server, the device).

``android_target`` (session) resolves ``--android-serial``:

* a serial: that target on the local adb server (127.0.0.1:5037, ``ANDROID_ADB_SERVER_PORT``);
* ``auto``: the only online target on that server;
* ``virtual``: a :class:`~pytest_mobile_agent.virtual.VirtualLab` started for the session, on the
  built-in adb endpoint, or with ``--virtual-adb real`` behind Debian's adb server with the device's
  adbd endpoint attached; the lab stops at the end of the session.

``adb_server`` and ``device`` are the client objects for that target. A test that asks for them with
no target named is skipped with the plugin's reason.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pytest

from pytest_mobile_agent import errors
from pytest_mobile_agent.adb import AdbServer, Device

if TYPE_CHECKING:
    from pytest_mobile_agent.virtual import VirtualLab

VIRTUAL = "virtual"
AUTO = "auto"
VIRTUAL_FRONTS = ("builtin", "real")


@dataclass(frozen=True)
class AndroidTarget:
    """The target a session drives: its serial, the adb server it is on, and the lab behind it if virtual."""

    serial: str
    server: AdbServer
    lab: VirtualLab | None = None  # for `--android-serial virtual`

    @property
    def virtual(self) -> bool:
        return self.lab is not None


def resolve_auto(server: AdbServer) -> str:
    """The serial of the only online target; an error naming the choices otherwise."""
    online = [entry.serial for entry in server.devices() if entry.online]
    if len(online) != 1:
        listed = ", ".join(online) or "none"
        raise errors.MobileAgentError(
            f"--android-serial auto needs exactly one online target on {server.address}, found {listed}",
            advice="Name one with --android-serial SERIAL",
        )
    return online[0]


def start_virtual(config: pytest.Config) -> AndroidTarget:
    """A lab for the session, on the front `--virtual-adb` names."""
    from pytest_mobile_agent.virtual import VirtualLab

    lab = VirtualLab.start(1, real_adb=config.getoption("virtual_adb") == "real")
    return AndroidTarget(lab.serials[0], AdbServer(host="127.0.0.1", port=lab.adb_port), lab)


@pytest.fixture(scope="session")
def android_target(request: pytest.FixtureRequest) -> Iterator[AndroidTarget]:
    from pytest_mobile_agent.plugin import NO_SERIAL_REASON, android_serial

    named = android_serial(request.config)
    if named is None:
        pytest.skip(NO_SERIAL_REASON)
    if named == VIRTUAL:
        target = start_virtual(request.config)
        assert target.lab is not None
        try:
            yield target
        finally:
            target.lab.stop()
        return
    server = AdbServer()
    yield AndroidTarget(resolve_auto(server) if named == AUTO else named, server)


@pytest.fixture(scope="session")
def adb_server(android_target: AndroidTarget) -> AdbServer:
    """The client of the adb server the target is on."""
    return android_target.server


@pytest.fixture
def device(android_target: AndroidTarget) -> Device:
    """The target, as the adb client's Device."""
    return android_target.server.device(android_target.serial)
