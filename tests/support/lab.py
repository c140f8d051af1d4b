"""A virtual device for the security tests: a lab on the built-in adb endpoint with the fixture
app and the agent double, the client's Device for it, and a way to start a session and a mirror."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from pytest_mobile_agent import errors
from pytest_mobile_agent.adb import AdbServer, Device
from pytest_mobile_agent.agent import AgentJar, Attached, Deployer, DeployOptions, Records
from pytest_mobile_agent.virtual import VirtualLab

PACKAGE = "dev.mobileagent.fixture"
COMPONENT = f"{PACKAGE}/.MainActivity"
CANARY = "/data/local/tmp/pwned"
IDLE_EXIT_MS = 10_000


@dataclass
class Bench:
    lab: VirtualLab
    serial: str
    model: Any
    server: AdbServer
    device: Device
    jar: AgentJar = field(default_factory=AgentJar.stand_in)
    attached: list[Attached] = field(default_factory=list)

    def deployer(self, records: Records | None = None, **options: Any) -> Deployer:
        options.setdefault("idle_exit_ms", IDLE_EXIT_MS)
        return Deployer(self.device, self.jar, records if records is not None else Records(),
                        DeployOptions(**options))

    def attach(self, records: Records | None = None, **options: Any) -> Attached:
        attached = self.deployer(records, **options).attach()
        self.attached.append(attached)
        return attached

    def open(self, tab: str = "Login") -> None:
        out = self.device.shell(f"am start -W -S -n {COMPONENT} --es tab {tab}")
        assert out.exit_code == 0 and "Status: ok" in out.text(), out.text()

    def exists(self, path: str) -> bool:
        from pytest_mobile_agent.virtual.kernel.creds import ROOT

        return bool(self.model.fs.exists(path, ROOT))

    def agent_pids(self) -> list[int]:
        return [p.pid for p in self.model.processes.processes()
                if not p.dead and p.args_line().startswith("mobile-agent ")]

    def cleanup(self) -> None:
        for attached in self.attached:
            with contextlib.suppress(errors.MobileAgentError):
                attached.stop()
        for pid in self.agent_pids():
            proc = self.model.processes.get(pid)
            if proc is not None:
                proc.deliver(9)


@contextlib.contextmanager
def bench() -> Iterator[Bench]:
    lab = VirtualLab.start(1)
    try:
        serial = lab.serials[0]
        model = lab.device(serial)  # the device carries the fixture app's UI and the agent double
        server = AdbServer(host="127.0.0.1", port=lab.adb_port)
        one = Bench(lab, serial, model, server, server.device(serial))
        try:
            yield one
        finally:
            one.cleanup()
    finally:
        lab.stop()
