"""Several targets for one test (`@pytest.mark.devices(N)`): each its own automation lock, agent,
session, screen and device control, opened together and closed in the reverse order.

The locks are taken in one global order, the lock files' order (by adb server address and serial,
userfiles.target_key), whatever order the test lists its targets in: two workers that each need
two of the same targets then wait for each other's first lock instead of each holding one the
other waits for, so they never deadlock. What lives as long as the run (the jar, the records, the
controller choice of each target) is kept in the `TargetPool`, closed at the run's end.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from pytest_mobile_agent.agent import AgentJar, Attached, Records
from pytest_mobile_agent.control import DeviceControl
from pytest_mobile_agent.mirror import Mirror
from pytest_mobile_agent.mirror.steps import Steps
from pytest_mobile_agent.session import Selection, Session
from pytest_mobile_agent.stack.agent import attach, choose_jar, records_for
from pytest_mobile_agent.stack.assembly import start_session
from pytest_mobile_agent.stack.control import device_control
from pytest_mobile_agent.stack.lock import AutomationLock
from pytest_mobile_agent.stack.paths import select_controller
from pytest_mobile_agent.stack.settings import Settings
from pytest_mobile_agent.stack.targets import AndroidTarget, TargetProvider


@dataclass
class TargetPool:
    """Per target, what a run keeps: the agent jar, the records, the controller selection."""

    provider: TargetProvider
    settings: Settings
    announce: Callable[[str], None] = lambda _: None
    _jars: dict[str, AgentJar] = field(default_factory=dict)
    _records: dict[str, Records] = field(default_factory=dict)
    _selections: dict[str, Selection] = field(default_factory=dict)

    def jar(self, target: AndroidTarget) -> AgentJar:
        if target.label not in self._jars:
            self._jars[target.label] = choose_jar(self.settings, target, self.announce)
        return self._jars[target.label]

    def records(self, target: AndroidTarget) -> Records:
        if target.label not in self._records:
            self._records[target.label] = records_for(self.provider, target)
        return self._records[target.label]

    def selection(self, target: AndroidTarget) -> Selection:
        if target.label not in self._selections:
            self._selections[target.label] = select_controller(target, self.settings)
        return self._selections[target.label]

    def close(self) -> None:
        for selection in self._selections.values():
            if selection.controller is not None:
                selection.controller.close()
        self._selections.clear()


@dataclass(frozen=True)
class OpenTarget:
    target: AndroidTarget
    attached: Attached
    session: Session
    screen: Mirror
    control: DeviceControl


def lock_order(targets: list[AndroidTarget]) -> list[AutomationLock]:
    """The targets' locks in the one global order (their lock files' paths)."""
    locks = {target.label: target.automation_lock() for target in targets}
    return sorted(locks.values(), key=lambda lock: str(lock.lock_path))


@contextlib.contextmanager
def locks_held(targets: list[AndroidTarget], holder: str, wait: float,
               on_wait: Callable[[str], None] | None = None) -> Iterator[float]:
    """Hold every target's lock, taken in the global order; yields the seconds spent waiting."""
    waited = 0.0
    with contextlib.ExitStack() as stack:
        for lock in lock_order(targets):
            waited += stack.enter_context(lock.held(holder, wait, on_wait=on_wait))
        yield waited


@contextlib.contextmanager
def open_targets(pool: TargetPool, targets: list[AndroidTarget], *, steps: Steps,
                 before_attach: Callable[[AndroidTarget], None] = lambda _: None) -> Iterator[list[OpenTarget]]:
    """Each target's agent, session, screen and device control (its locks held by the caller);
    closing restores each control's changes, detaches each session and closes each agent
    connection, the last target first."""
    with contextlib.ExitStack() as stack:
        opened = [_open_one(pool, target, steps, before_attach, stack) for target in targets]
        yield opened


def _open_one(pool: TargetPool, target: AndroidTarget, steps: Steps,
              before_attach: Callable[[AndroidTarget], None], stack: contextlib.ExitStack) -> OpenTarget:
    before_attach(target)
    attached = attach(target, pool.jar(target), pool.records(target), pool.settings)
    stack.callback(attached.connection.close)
    selection = pool.selection(target)
    session = start_session(attached, selection, target.device)
    stack.callback(session.detach)
    screen = Mirror(session.backend(), steps=steps)
    control = device_control(target, target.device, selection, attached, screen, steps)
    stack.callback(control.restore)
    return OpenTarget(target, attached, session, screen, control)
