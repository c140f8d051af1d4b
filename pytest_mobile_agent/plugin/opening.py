"""The run record's hooks on the opener: as each part of each target opens (stack/opener.py), the test's
run record (plugin/run.py) takes what its policies need, the same way for one target and for several:

    agent attached   the disturbance watch (process list, foreign input), the logcat and crash cut
    session started  the artifacts' session, the video, the watch's count of controller contacts
    screen opened    the artifacts' screen, the trace's screen source and replica, the snapshots' profile
    web opened       the artifacts' web pages, Playwright's trace of them (plugin/web_evidence.py)
    closing          a replaced connection noted as a disturbance, the status lines kept for the summary
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from pytest_mobile_agent.agent import Attached
from pytest_mobile_agent.control import DeviceControl
from pytest_mobile_agent.mirror import Mirror
from pytest_mobile_agent.plugin import accessibility, evidence, web_evidence
from pytest_mobile_agent.plugin.foreign_input import InputWatch
from pytest_mobile_agent.plugin.policy import DisturbanceWatch
from pytest_mobile_agent.plugin.run import TestRun, run_of
from pytest_mobile_agent.session import Session
from pytest_mobile_agent.stack.opener import TargetParts
from pytest_mobile_agent.web.content import WebContent

InputWatchOf = Callable[[TargetParts], "InputWatch | None"]
StatusSink = Callable[[str, list[str]], None]


class RunHooks:
    """The `OpenerHooks` of one test's run record."""

    def __init__(self, item: pytest.Item, *, input_watch: InputWatchOf, api_level: Callable[[], int | None],
                 status: StatusSink) -> None:
        self._item = item
        self._input_watch = input_watch
        self._api_level = api_level
        self._status = status

    @property
    def run(self) -> TestRun:
        return run_of(self._item)

    def agent_attached(self, part: TargetParts, attached: Attached) -> None:
        record = self.run.target(part.label, part.target.serial)
        watch = DisturbanceWatch(part.processes, part.own_sockets)
        inputs = self._input_watch(part)
        if inputs is not None:
            mark = inputs.mark()
            watch.foreign_input = lambda: inputs.foreign_since(mark, watch.sent_contacts())
        record.watch = watch
        record.artifacts.mark_start(part.device)

    def session_started(self, part: TargetParts, session: Session) -> None:
        record = self.run.target(part.label, part.target.serial)
        record.artifacts.session = session
        if record.watch is not None:
            record.watch.sent_contacts = lambda: session.inputs.controller
        evidence.session_started(self._item, record, session, part.device)

    def screen_opened(self, part: TargetParts, screen: Mirror) -> None:
        record = self.run.target(part.label, part.target.serial)
        record.artifacts.screen = screen
        evidence.screen_opened(self._item, record, part.session, screen, self._api_level())
        accessibility.screen_opened(self._item, screen, screen.steps.screen, lambda: self.run.evidence.recorder,
                                    part.session.controller if part.session is not None else None)

    def control_opened(self, part: TargetParts, control: DeviceControl) -> None:
        pass

    def web_opened(self, part: TargetParts, web: WebContent) -> None:
        web_evidence.web_opened(self._item, self.run.target(part.label, part.target.serial), web)

    def closing(self, part: TargetParts) -> None:
        record = self.run.target(part.label, part.target.serial)
        attached = part.opened_attached
        if attached is not None and record.watch is not None:
            disconnection = attached.connection.disconnection
            if disconnection is not None and "replaced" in str(disconnection.reason):
                record.watch.note(f"another host took our agent's connection ({disconnection.reason})")
        session = part.opened_session
        if session is not None:
            heading = [f"target {part.label}"] if part.target.named_server or len(self.run.targets) > 1 else []
            self._status(part.label, [*heading, *session.status()])
        control = part.opened_control
        if control is not None:
            self._status(f"{part.label} device state", control.status())
