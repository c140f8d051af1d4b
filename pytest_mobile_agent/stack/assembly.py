"""The whole stack of one target, open for a block: what the inspector and the benches use
(re-exported by `pytest_mobile_agent.stack`). It opens exactly what a test opens, through the one
opener (stack/opener.py): the lock, the quiet wait, the agent, the session and the screen."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from pytest_mobile_agent.adb import Device
from pytest_mobile_agent.agent import Attached
from pytest_mobile_agent.automation_lock import DEFAULT_LOCK_WAIT
from pytest_mobile_agent.mirror import Mirror
from pytest_mobile_agent.session import Selection, Session
from pytest_mobile_agent.stack.opener import NoHooks, TargetParts, TargetResources, open_group, start_session
from pytest_mobile_agent.stack.settings import Settings
from pytest_mobile_agent.stack.targets import AndroidTarget, TargetProvider

__all__ = ["DEFAULT_LOCK_WAIT", "OpenStack", "open_stack", "start_session"]


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


class _OnAttached(NoHooks):
    def __init__(self, call: Callable[[AndroidTarget, Device], None] | None) -> None:
        self._call = call

    def agent_attached(self, part: TargetParts, attached: Attached) -> None:
        if self._call is not None:
            self._call(part.target, part.device)


@contextlib.contextmanager
def open_stack(settings: Settings, *, holder: str, lock_wait: float = DEFAULT_LOCK_WAIT,
               announce: Callable[[str], None] = lambda _: None,
               on_attached: Callable[[AndroidTarget, Device], None] | None = None) -> Iterator[OpenStack]:
    """The target's stack, open until the block ends. Closing detaches the session (the agent stays
    resident for the next user, as after a test), closes the agent's connection, releases the lock
    (held as `holder`), closes the controller and stops a virtual device started here, in that order.
    `on_attached` runs once the agent is attached and before the session starts."""
    provider = TargetProvider(settings)
    resources = TargetResources(provider, settings, announce)
    try:
        target = provider.target()
        announce(f"target {target.serial} on the adb server at {target.server.address}")
        with open_group(resources, [target], holder=holder, lock_wait=lock_wait, hooks=_OnAttached(on_attached),
                        announce=announce) as group:
            part = group[0]
            session = part.session
            yield OpenStack(target, part.device, part.attached, part.selection, session, part.screen)
    finally:
        resources.close()
        provider.close()
