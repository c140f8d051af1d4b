"""Policies for a shared device: the quiet-device wait and the detection of disturbances.

A device may be shared with other people and tools. Before a device test the plugin waits (up to
`--quiet-wait`, 60 s by default) until no agent but ours runs and nothing holds UI automation. A
test that another user disturbs (an agent not ours starts, UI automation is taken, input the test
did not send arrives) runs again once the device is quiet; a failure while nobody else was on the
device fails at once, and so does the app's crash or its leaving the front after the test's own
input. This module decides; the plugin (plugin.py) acts.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from pytest_mobile_agent.agent.launch import ProcessEntry, agent_of, parse_ps
from pytest_mobile_agent.errors import MobileAgentError

log = logging.getLogger("pytest_mobile_agent.plugin.policy")

# Command-line fragments of the automation clients that hold the single UI-automation slot.
AUTOMATION_CLIENTS = (
    "uiautomator",
    "io.appium.uiautomator2",
    "com.github.uiautomator",
    "androidx.test.uiautomator",
    "com.wetest.uia2",
)

DeviceProcess = ProcessEntry  # a row of `ps -A -o PID,ARGS`, as agent.launch.parse_ps reads them
__all__ = ["DeviceActivity", "DeviceBusy", "DeviceProcess", "DisturbanceWatch", "QuietWait", "Verdict", "parse_ps",
           "read_activity"]


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


@dataclass(frozen=True)
class Verdict:
    """What a failed test's run was: disturbed (`disturbance`, the evidence of another user) or the
    test's own failure, with `own` saying why a moved app or a crash was no disturbance."""

    disturbance: str | None = None
    own: str | None = None


@dataclass
class DisturbanceWatch:
    """Remembers who was on the device when a test started, to tell a disturbance from a failure.

    A disturbance needs evidence of another user: a note (our agent replaced or killed by another
    client), an agent not ours or a UI-automation holder in the process list, or input the test did
    not send (`foreign_input`, foreign_input.py). The app leaving the front is only a symptom: with
    evidence it is said beside it; without, it followed the test's own input and is the test's
    failure. The app's crash (`crash`, from `logcat -b crash`) is always the test's own failure."""

    list_processes: Callable[[], list[DeviceProcess]]
    own_sockets: Callable[[], Iterable[str]]
    foreground: Callable[[], str | None] | None = None
    expected_foreground: str | None = None
    notes: list[str] = field(default_factory=list)
    foreign_input: Callable[[], str | None] | None = None
    crash: Callable[[], str | None] | None = None
    #: the contacts the test sent through the emulator controller (the session's count)
    sent_contacts: Callable[[], int] = lambda: 0

    def note(self, what: str) -> None:
        """Something the plugin saw directly (our agent replaced or killed by another client)."""
        self.notes.append(what)

    def disturbance(self) -> str | None:
        """What disturbed the test, or None when nobody else was on the device."""
        return self.verdict().disturbance

    def verdict(self) -> Verdict:
        crashed = _checked(self.crash, "the crash buffer")
        if crashed:
            return Verdict(own=f"{crashed}; an app's crash is the test's own failure, not a disturbance")
        evidence = [*self.notes, *self._others()]
        moved = self._moved()
        if evidence:
            return Verdict(disturbance="; ".join(evidence + ([moved] if moved else [])))
        if moved:
            return Verdict(own=f"{moved} with nobody else on the device (no other agent, no UI-automation holder, "
                               "no input the test did not send): the test's own failure, not a disturbance")
        return Verdict()

    def _others(self) -> list[str]:
        try:
            activity = read_activity(self.list_processes(), self.own_sockets())
        except MobileAgentError as exc:
            log.warning("could not read the process list to check for a disturbance: %s", exc)
            activity = DeviceActivity()
        found = [] if activity.quiet else [activity.describe()]
        foreign = _checked(self.foreign_input, "the input devices")
        return [*found, foreign] if foreign else found

    def _moved(self) -> str | None:
        if self.foreground is None or not self.expected_foreground:
            return None
        current = _checked(self.foreground, "the foreground")
        if current == self.expected_foreground:
            return None
        return f"{self.expected_foreground} left the front (now {current or 'nothing'})"


def _checked(read: Callable[[], str | None] | None, what: str) -> str | None:
    if read is None:
        return None
    try:
        return read()
    except MobileAgentError as exc:
        log.warning("could not read %s to check for a disturbance: %s", what, exc)
        return None
