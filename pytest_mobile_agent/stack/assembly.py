"""Opening and closing the whole stack in order (re-exported by `pytest_mobile_agent.stack`)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from pytest_mobile_agent.adb import Device
from pytest_mobile_agent.agent import Attached
from pytest_mobile_agent.mirror import Mirror
from pytest_mobile_agent.session import Selection, Session
from pytest_mobile_agent.stack.agent import attach, choose_jar, records_for
from pytest_mobile_agent.stack.lock import DEFAULT_LOCK_WAIT
from pytest_mobile_agent.stack.paths import select_controller
from pytest_mobile_agent.stack.settings import Settings
from pytest_mobile_agent.stack.targets import AndroidTarget, TargetProvider


@dataclass(frozen=True)
class OpenStack:
    """An open stack: the target, its device, the attached agent, the controller selection, the
    session and the screen (a mirror of the device's windows)."""

    target: AndroidTarget
    device: Device
    attached: Attached
    selection: Selection
    session: Session
    screen: Mirror


def start_session(attached: Attached, selection: Selection, device: Device) -> Session:
    """The agent and the selected controller behind the mirror's backends."""
    return Session.start(attached, controller=selection.controller, device=device, serial=selection.serial,
                         warning=selection.warning)


@contextlib.contextmanager
def open_stack(settings: Settings, *, holder: str, lock_wait: float = DEFAULT_LOCK_WAIT,
               announce: Callable[[str], None] = lambda _: None,
               on_attached: Callable[[AndroidTarget, Device], None] | None = None) -> Iterator[OpenStack]:
    """The target's stack, open until the block ends. Closing detaches the session (the agent stays
    resident for the next user, as after a test), closes the controller and the agent's connection,
    releases the lock (held as `holder`) and stops a virtual device started here, in that order.
    `on_attached` runs once the agent is attached and before the session starts."""
    provider = TargetProvider(settings)
    try:
        target = provider.target()
        device = target.device
        announce(f"target {target.serial} on the adb server at {target.server.address}")
        with target.automation_lock().held(holder, lock_wait, on_wait=announce):
            attached = attach(target, choose_jar(settings, target, announce), records_for(provider, target), settings)
            try:
                if on_attached is not None:
                    on_attached(target, device)
                selection = select_controller(target, settings)
                try:
                    session = start_session(attached, selection, device)
                    try:
                        yield OpenStack(target, device, attached, selection, session, Mirror(session.backend()))
                    finally:
                        session.detach()
                finally:
                    if selection.controller is not None:
                        selection.controller.close()
            finally:
                attached.connection.close()
    finally:
        provider.close()
