"""The quiet-device wait: before a test (or a tool) attaches, wait until no agent but ours runs and
nothing holds UI automation (`--quiet-wait`, 60 s by default), naming what holds the device while it
waits. The stack's opener runs it before each target's agent attaches; the plugin's disturbance
watch (plugin/policy.py) reads the same activity to tell a disturbance from a failure.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from pytest_mobile_agent.agent.launch import ProcessEntry, agent_of
from pytest_mobile_agent.errors import MobileAgentError

log = logging.getLogger("pytest_mobile_agent.stack.quiet")

PS_COMMAND = "ps -A -o PID,ARGS"
DeviceProcess = ProcessEntry  # a row of `ps -A -o PID,ARGS`, as agent.launch.parse_ps reads them

# Command-line fragments of the automation clients that hold the single UI-automation slot.
AUTOMATION_CLIENTS = (
    "uiautomator",
    "io.appium.uiautomator2",
    "com.github.uiautomator",
    "androidx.test.uiautomator",
    "com.wetest.uia2",
)



class DeviceBusy(MobileAgentError):
    """The device did not become quiet in time; the message names what held it."""


def describe(process: DeviceProcess) -> str:
    return f"{process.args} (pid {process.pid})"


def is_automation_client(process: DeviceProcess) -> bool:
    return agent_of(process) is None and any(client in process.args for client in AUTOMATION_CLIENTS)


@dataclass(frozen=True)
class DeviceActivity:
    """Who else is on the device: agents not ours and automation clients."""

    foreign_agents: tuple[DeviceProcess, ...] = ()
    automation_clients: tuple[DeviceProcess, ...] = ()

    @property
    def quiet(self) -> bool:
        return not self.foreign_agents and not self.automation_clients

    def describe(self) -> str:
        parts = [f"agent {describe(p)} (not in this run's records: another host's, or one a run with other "
                 "records left, which exits once idle for its idle exit)" for p in self.foreign_agents]
        parts += [f"automation client {describe(p)}" for p in self.automation_clients]
        return ", ".join(parts) or "nobody"


def read_activity(processes: Iterable[DeviceProcess], own_sockets: Iterable[str]) -> DeviceActivity:
    own = set(own_sockets)
    listed = list(processes)
    foreign = tuple(p for p in listed if (agent := agent_of(p)) is not None and agent.socket not in own)
    clients = tuple(p for p in listed if is_automation_client(p))
    return DeviceActivity(foreign, clients)


@dataclass
class QuietWait:
    """Waits until the device is quiet, polling the process list."""

    list_processes: Callable[[], list[DeviceProcess]]
    own_sockets: Callable[[], Iterable[str]]
    timeout: float = 60.0
    poll: float = 0.5
    clock: Callable[[], float] = time.monotonic
    sleep: Callable[[float], None] = time.sleep
    on_wait: Callable[[str], None] | None = None  # hears a progress line at once, then every report_every s
    report_every: float = 10.0

    def wait(self) -> float:
        """Seconds waited; DeviceBusy naming the holders when the device is still busy at the timeout."""
        started = self.clock()
        next_report = 0.0
        while True:
            activity = read_activity(self.list_processes(), self.own_sockets())
            waited = self.clock() - started
            if activity.quiet:
                if next_report and self.on_wait:  # it was announced: say how it ended
                    self.on_wait(f"the device is quiet after {waited:.1f} s")
                return waited
            if waited >= self.timeout:
                raise DeviceBusy(
                    f"the device was not quiet after {self.timeout:g} s: {activity.describe()} held it",
                    advice="Stop that tool or agent, raise --quiet-wait, or take it over with --agent-force",
                )
            if waited >= next_report:
                message = (f"waiting for the device to be quiet: {activity.describe()} holds it; "
                           f"waited {waited:.0f} s of {self.timeout:g} s")
                log.info(message)
                if self.on_wait:
                    self.on_wait(message)
                next_report = waited - waited % self.report_every + self.report_every
            self.sleep(self.poll)
