"""The session: an attached agent, and the controller when there is one, behind the mirror's backends.

    session = Session.start(attached, controller=None, device=device)
    mirror = Mirror(session.backend())        # handed over once
    session.status()                           # the report of paths and failures
    session.stop()                             # shutdown, the agent killed past the timeout
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from pytest_mobile_agent.agent.deploy import Attached, DeviceLike, Reused
from pytest_mobile_agent.emulator.controller import Controller
from pytest_mobile_agent.errors import MobileAgentError
from pytest_mobile_agent.session.backends import (
    Backend,
    Disconnection,
    ImageFormat,
    Screenshot,
    SessionEvent,
)
from pytest_mobile_agent.session.events import EventStream
from pytest_mobile_agent.session.frames import FrameSource
from pytest_mobile_agent.session.input import InputCounts, InputRouter
from pytest_mobile_agent.session.path_selection import Selection, StatusFacts, status_lines
from pytest_mobile_agent.session.toasts import AgentToasts
from pytest_mobile_agent.session.tree import (
    AgentTree,
    ReadRecord,
    TreeOptions,
    scale_from_wm_density,
)

log = logging.getLogger("pytest_mobile_agent.session")

DENSITY_COMMAND = "wm density"


class BackendTaken(MobileAgentError):
    """`Session.backend()` hands the backends over once; one mirror drives one session."""


class Session:
    """Use `Session.start` or `Session.start_selected`."""

    def __init__(
        self,
        attached: Attached,
        scale: float,
        controller: Controller | None = None,
        *,
        serial: str = "",
        warning: str | None = None,
        owns_controller: bool = False,
        tree_options: TreeOptions | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.attached = attached
        self.connection = attached.connection
        self.controller = controller
        self.scale = scale
        self.serial = serial or attached.record.serial
        self.warning = warning
        self._owns_controller = owns_controller
        self._taken = False
        self._lock = threading.Lock()
        self._stopped = False
        self.disconnection: Disconnection | None = None
        capabilities = self.connection.hello.capabilities
        self.events = EventStream()
        self.tree = AgentTree(
            self.connection, self._get_scale, capabilities=capabilities, options=tree_options, clock=clock, sleep=sleep
        )
        self.input = InputRouter(self.connection, self.tree, controller, clock=clock, sleep=sleep,
                                 capabilities=capabilities)
        self.frames = FrameSource(self.connection, controller, put=self.events.put, clock=clock)
        self.events.observe(self._observe)
        self.connection.set_sink(self.events.sink)
        self.frames.start()

    # --- starting --------------------------------------------------------------------------------

    @classmethod
    def start(
        cls,
        attached: Attached,
        controller: Controller | None = None,
        *,
        device: DeviceLike | None = None,
        scale: float | None = None,
        serial: str = "",
        warning: str | None = None,
        tree_options: TreeOptions | None = None,
    ) -> Session:
        """A session on `attached` (an agent.Attached), with an optional connected emulator.Controller.

        The display scale comes from `wm density` on `device` (else the attached agent's), the override
        density first; `scale` gives it instead. A controller given here stays the caller's to close;
        `start_selected` owns the one `select_paths` connected.
        """
        if scale is None:
            scale = read_scale(device if device is not None else attached.deployer.device)
        return cls(attached, scale, controller, serial=serial, warning=warning, tree_options=tree_options)

    @classmethod
    def start_selected(
        cls,
        attached: Attached,
        selection: Selection,
        *,
        device: DeviceLike | None = None,
        scale: float | None = None,
        tree_options: TreeOptions | None = None,
    ) -> Session:
        """A session on the paths `select_paths` chose; the session owns the controller it got."""
        if scale is None:
            scale = read_scale(device if device is not None else attached.deployer.device)
        return cls(
            attached,
            scale,
            selection.controller,
            serial=selection.serial,
            warning=selection.warning,
            owns_controller=selection.controller is not None,
            tree_options=tree_options,
        )

    # --- the mirror's side -----------------------------------------------------------------------

    def backend(self) -> Backend:
        """The four backends, handed over once."""
        with self._lock:
            if self._taken:
                raise BackendTaken(
                    "the session's backend was already taken", advice="drive one mirror per session"
                )
            self._taken = True
        return Backend(tree=self.tree, events=self.events, input=self.input, frames=self.frames, scale=self.scale,
                       toasts=AgentToasts(self.connection))

    def screenshot(self, format: ImageFormat = "png") -> Screenshot:
        """A screenshot from the agent, upright in every display orientation."""
        return self.frames.screenshot(format)

    # --- counters --------------------------------------------------------------------------------

    @property
    def reads(self) -> int:
        return self.tree.reads

    @property
    def last_read(self) -> ReadRecord | None:
        return self.tree.last_read

    @property
    def inputs(self) -> InputCounts:
        return self.input.counts

    @property
    def frames_received(self) -> int:
        return self.frames.received

    # --- the report ------------------------------------------------------------------------------

    def status(self) -> list[str]:
        """The agent and the active path of each kind, the keyboard, the warning, what failed since."""
        hello = self.connection.hello
        controller = self.controller
        failure = self.input.controller_failure
        disconnection = self.disconnection
        facts = StatusFacts(
            serial=self.serial,
            agent=hello.agent,
            version=hello.version,
            protocol=self.connection.protocol,
            pid=hello.pid,
            socket=hello.socket or self.attached.record.socket,
            reused=isinstance(self.attached.outcome, Reused),
            controller_url=controller.endpoint.url if controller is not None else None,
            keyboard=controller.keys_supported if controller is not None else False,
            frames_received=self.frames.received,
            controller_failure=str(failure) if failure is not None else None,
            frame_failures=self.frames.failures,
            last_frame_failure=str(self.frames.last_failure) if self.frames.last_failure else None,
            warning=self.warning,
            disconnected=disconnection.reason if disconnection else None,
            reconnect_hint=disconnection.reconnect_hint if disconnection else None,
        )
        return status_lines(facts)

    # --- stopping --------------------------------------------------------------------------------

    def stop(self) -> None:
        """Stop the frames, ask the agent to shut down (killed past the timeout), close the controller."""
        self._end(self.attached.stop)

    def detach(self) -> None:
        """Stop the frames and close the connection, leaving the agent running for the next attach
        (reused through its record); a controller the session owns is closed."""
        self._end(self.connection.close)

    def _end(self, end_agent: Callable[[], None]) -> None:
        with self._lock:
            if self._stopped:
                return
            self._stopped = True
        self.frames.stop()
        try:
            end_agent()
        finally:
            if self._owns_controller and self.controller is not None:
                self.controller.close()

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # --- helpers ---------------------------------------------------------------------------------

    def _get_scale(self) -> float:
        return self.scale

    def _observe(self, event: SessionEvent) -> None:
        if isinstance(event, Disconnection):
            self.disconnection = event
            log.info("the agent connection of %s ended: %s", self.serial, event.reason)


def read_scale(device: DeviceLike | None) -> float:
    """Pixels per point from the device's `wm density` (420 dpi: 2.625)."""
    if device is None:
        raise MobileAgentError(
            "the session needs the device to read the display density",
            advice="pass device= to Session.start (or scale= when it is known)",
        )
    return scale_from_wm_density(device.shell(DENSITY_COMMAND).text())
