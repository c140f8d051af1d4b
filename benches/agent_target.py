"""The target an agent bench measures on (run as scripts, so `benches/` is on sys.path): `virtual`, a
virtual device in a lab of its own with the stand-in jar, or a serial on the local adb server with
the jar the plugin would deploy (`AgentJar.locate`: MOBILE_AGENT_JAR, the bundled jar, the cached
build). The lab is stopped on the way out."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from pytest_mobile_agent.adb import AdbServer, Device
from pytest_mobile_agent.agent import AgentJar

VIRTUAL = "virtual"


@dataclass
class AgentTarget:
    device: Device
    jar: AgentJar
    serial: str
    lab: Any = None
    """The VirtualLab of a virtual target, else None."""

    def describe(self) -> str:
        return f"{self.serial} ({self.jar.describe()})"


@contextlib.contextmanager
def agent_target(serial: str) -> Iterator[AgentTarget]:
    if serial != VIRTUAL:
        yield AgentTarget(AdbServer().device(serial), AgentJar.locate(), serial)
        return
    from pytest_mobile_agent.virtual import VirtualLab

    lab = VirtualLab.start(1)
    try:
        device = AdbServer(host="127.0.0.1", port=lab.adb_port).device(lab.serials[0])
        yield AgentTarget(device, AgentJar.stand_in(), lab.serials[0], lab)
    finally:
        lab.stop()
