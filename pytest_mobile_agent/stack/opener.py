"""One opener for one target or many: what a test, the inspector and the benches open, in one place.

A test is a group of targets: one for a plain device test, N for `@pytest.mark.devices(N)`. The group
holds every target's automation lock (taken in one global order, `group.locks_held`), and each target's
parts open on first use, in their order, and close in the reverse one:

    the quiet wait -> the agent -> the session -> the screen -> the device control
                                                   (and the web content, on first use: web/content.py)

so a test that asks only for the agent never starts a session. As each part opens, the opener tells
its `OpenerHooks` (the plugin's per-test run record: the disturbance watch, the artifacts, the
evidence and the status lines), once per target; `closing` comes before a target's parts close.
What a run keeps per target (the agent jar, the records, the controller selection) lives in the
`TargetResources`, closed at the run's end.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Protocol, overload

from pytest_mobile_agent.adb import Device
from pytest_mobile_agent.agent import AgentJar, Attached, Records
from pytest_mobile_agent.agent.launch import parse_ps
from pytest_mobile_agent.automation_lock import AutomationLock
from pytest_mobile_agent.control import DeviceControl
from pytest_mobile_agent.mirror import Mirror, web_views
from pytest_mobile_agent.mirror.steps import Steps
from pytest_mobile_agent.session import Selection, Session
from pytest_mobile_agent.stack.agent import attach, choose_jar, records_for
from pytest_mobile_agent.stack.control import device_control
from pytest_mobile_agent.stack.controller_setting import select_controller
from pytest_mobile_agent.stack.quiet import PS_COMMAND, DeviceProcess, QuietWait
from pytest_mobile_agent.stack.settings import Settings
from pytest_mobile_agent.stack.targets import AndroidTarget, TargetProvider
from pytest_mobile_agent.web.content import WebContent

Announce = Callable[[str], None]


def _silent(_: str) -> None:
    pass


class OpenerHooks(Protocol):
    """What a target's parts tell as they open (the plugin's run record listens)."""

    def agent_attached(self, part: TargetParts, attached: Attached) -> None: ...

    def session_started(self, part: TargetParts, session: Session) -> None: ...

    def screen_opened(self, part: TargetParts, screen: Mirror) -> None: ...

    def control_opened(self, part: TargetParts, control: DeviceControl) -> None: ...

    def web_opened(self, part: TargetParts, web: WebContent) -> None: ...

    def closing(self, part: TargetParts) -> None: ...


class NoHooks:
    """Hooks that listen to nothing: the inspector's and the benches'."""

    def agent_attached(self, part: TargetParts, attached: Attached) -> None:
        pass

    def session_started(self, part: TargetParts, session: Session) -> None:
        pass

    def screen_opened(self, part: TargetParts, screen: Mirror) -> None:
        pass

    def control_opened(self, part: TargetParts, control: DeviceControl) -> None:
        pass

    def web_opened(self, part: TargetParts, web: WebContent) -> None:
        pass

    def closing(self, part: TargetParts) -> None:
        pass


@dataclass
class TargetResources:
    """Per target, what a run keeps: the agent jar, the records, the controller selection."""

    provider: TargetProvider
    settings: Settings
    announce: Announce = _silent
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


def start_session(attached: Attached, selection: Selection, device: Device) -> Session:
    """The agent and the selected controller behind the mirror's backends."""
    return Session.start(attached, controller=selection.controller, device=device, serial=selection.serial,
                         warning=selection.warning)


class TargetParts:
    """One target's parts, each opened on first use and in order; `close` closes them in reverse."""

    def __init__(self, target: AndroidTarget, resources: TargetResources, *, index: int, steps: Steps,
                 hooks: OpenerHooks, announce: Announce = _silent) -> None:
        self.target = target
        self.index = index
        self.steps = steps
        self._resources = resources
        self._hooks = hooks
        self._announce = announce
        self._closing = contextlib.ExitStack()
        self._attached: Attached | None = None
        self._session: Session | None = None
        self._screen: Mirror | None = None
        self._control: DeviceControl | None = None
        self._web: WebContent | None = None

    @property
    def label(self) -> str:
        return self.target.label

    @property
    def device(self) -> Device:
        return self.target.device

    @property
    def settings(self) -> Settings:
        return self._resources.settings

    @property
    def selection(self) -> Selection:
        return self._resources.selection(self.target)

    def own_sockets(self) -> set[str]:
        """The socket of the agent this host's records hold for the target (ours, not a foreign one)."""
        record = self._resources.records(self.target).get(self.device.serial)
        return {record.socket} if record is not None else set()

    def processes(self) -> list[DeviceProcess]:
        return parse_ps(self.device.shell(PS_COMMAND).text())

    @property
    def attached(self) -> Attached:
        """The resident agent, attached once the device is quiet (reused, replaced or launched)."""
        if self._attached is None:
            self._wait_until_quiet()
            attached = attach(self.target, self._resources.jar(self.target), self._resources.records(self.target),
                              self.settings)
            self._closing.callback(attached.connection.close)
            self._attached = attached
            self._hooks.agent_attached(self, attached)
        return self._attached

    @property
    def session(self) -> Session:
        """The agent and the controller behind the mirror's backends; closing detaches it."""
        if self._session is None:
            attached = self.attached
            session = start_session(attached, self.selection, self.device)
            self._closing.callback(session.detach)
            self._session = session
            self._hooks.session_started(self, session)
        return self._session

    @property
    def screen(self) -> Mirror:
        """The mirror of the target's windows, recording its calls in the group's steps."""
        if self._screen is None:
            session = self.session
            screen = Mirror(session.backend(), steps=self.steps, action_timeout=self.settings.action_timeout)
            screen.web_content = lambda: self.web
            self._screen = screen
            self._hooks.screen_opened(self, screen)
        return self._screen

    @property
    def control(self) -> DeviceControl:
        """The device under the test's control; closing puts back everything it changed."""
        if self._control is None:
            screen = self.screen
            control = device_control(self.target, self.device, self.selection, self.attached, screen, self.steps)
            self._closing.callback(control.restore)
            self._control = control
            self._hooks.control_opened(self, control)
        return self._control

    @property
    def web(self) -> WebContent:
        """The target's web content (`screen.web()`, the `web` fixture): the pages attached during the
        test, their bridges and Playwright connections, closed with the target's other parts, under
        the automation lock, before the screen's session detaches."""
        if self._web is None:
            web = WebContent(self.device, self.steps)
            web.webviews_on_screen = lambda: web_views.webview_packages(self.screen.snapshot())
            web.front_package = lambda: web_views.front_package(self._screen.current_view if self._screen else None)
            self._closing.callback(web.close)
            self._web = web
            self._hooks.web_opened(self, web)
        return self._web

    @property
    def opened_web(self) -> WebContent | None:
        return self._web

    @property
    def opened_attached(self) -> Attached | None:
        return self._attached

    @property
    def opened_session(self) -> Session | None:
        return self._session

    @property
    def opened_control(self) -> DeviceControl | None:
        return self._control

    def close(self) -> None:
        try:
            self._hooks.closing(self)
        finally:
            self._closing.close()

    def _wait_until_quiet(self) -> None:
        """Until no agent but ours runs and nothing holds UI automation (`--quiet-wait`); not with
        `--agent-force`, which takes the device over instead."""
        if self.settings.agent_force:
            return
        QuietWait(self.processes, self.own_sockets, timeout=self.settings.quiet_wait, on_wait=self._announce).wait()


class TargetGroup(Sequence[TargetParts]):
    """The targets of one test, in the order they were taken; `[0]` is the test's first target."""

    def __init__(self, parts: list[TargetParts], waited: float) -> None:
        self._parts = parts
        self.waited = waited
        """The seconds spent waiting for the automation locks."""

    @overload
    def __getitem__(self, index: int) -> TargetParts: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[TargetParts]: ...

    def __getitem__(self, index: int | slice) -> TargetParts | Sequence[TargetParts]:
        return self._parts[index]

    def __len__(self) -> int:
        return len(self._parts)

    def close(self) -> None:
        """Every target's parts closed, the last target first; each closes even when another failed."""
        with contextlib.ExitStack() as closing:
            for part in self._parts:
                closing.callback(part.close)


def lock_order(targets: Sequence[AndroidTarget]) -> list[AutomationLock]:
    """The targets' locks in the one global order (their lock files' paths)."""
    locks = {target.label: target.automation_lock() for target in targets}
    return sorted(locks.values(), key=lambda lock: str(lock.lock_path))


@contextlib.contextmanager
def locks_held(targets: Sequence[AndroidTarget], holder: str, wait: float,
               on_wait: Announce | None = None) -> Iterator[float]:
    """Hold every target's lock, taken in the global order; yields the seconds spent waiting."""
    waited = 0.0
    with contextlib.ExitStack() as stack:
        for lock in lock_order(targets):
            waited += stack.enter_context(lock.held(holder, wait, on_wait=on_wait))
        yield waited


@contextlib.contextmanager
def open_group(resources: TargetResources, targets: Sequence[AndroidTarget], *, holder: str,
               lock_wait: float | None = None, steps: Steps | None = None, hooks: OpenerHooks | None = None,
               announce: Announce = _silent) -> Iterator[TargetGroup]:
    """The targets' locks held (as `holder`, waiting up to `lock_wait`, by default the settings'), and
    their parts ready to open on first use; closing closes the parts, then releases the locks. With
    several targets each screen tags its steps with its target (`Steps.for_screen`)."""
    shared = steps if steps is not None else Steps()
    listening = hooks if hooks is not None else NoHooks()
    wait = resources.settings.lock_wait if lock_wait is None else lock_wait
    with locks_held(targets, holder, wait, on_wait=announce) as waited:
        parts = [TargetParts(target, resources, index=index,
                             steps=shared if len(targets) == 1 else shared.for_screen(target.label),
                             hooks=listening, announce=announce)
                 for index, target in enumerate(targets)]
        group = TargetGroup(parts, waited)
        try:
            yield group
        finally:
            group.close()
