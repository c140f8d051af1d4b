"""Policies for a shared device: the quiet-device wait and the detection of disturbances.

A device may be shared with other people and tools. Before a device test the plugin waits (up to
`--quiet-wait`, 60 s by default) until no agent but ours runs and nothing holds UI automation. A
test that another user disturbs (an agent not ours starts, UI automation is taken, input the test
did not send arrives) runs again once the device is quiet; a failure while nobody else was on the
device fails at once, and so does the app's crash or its leaving the front after the test's own
input. The quiet wait itself is the stack's (stack/quiet.py, re-exported here); this module decides
what a failure was, and the plugin acts.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from pytest_mobile_agent.agent.launch import ProcessEntry, parse_ps
from pytest_mobile_agent.errors import MobileAgentError
from pytest_mobile_agent.stack.quiet import (
    AUTOMATION_CLIENTS,
    DeviceActivity,
    DeviceBusy,
    DeviceProcess,
    QuietWait,
    describe,
    is_automation_client,
    read_activity,
)

log = logging.getLogger("pytest_mobile_agent.plugin.policy")
__all__ = ["AUTOMATION_CLIENTS", "DeviceActivity", "DeviceBusy", "DeviceProcess", "DisturbanceWatch",
           "ProcessEntry", "QuietWait", "Verdict", "describe", "is_automation_client", "parse_ps", "read_activity"]


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
