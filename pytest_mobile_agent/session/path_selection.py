"""Path selection and the status report (task 5.5).

`select_paths` decides whether a session uses the emulator's controller:

| Target                                              | Taps and swipes | Frames     | Warning                   |
|-----------------------------------------------------|-----------------|------------|---------------------------|
| Emulator whose controller connects                  | controller      | controller | none                      |
| Emulator whose controller does not resolve / answer | agent           | none       | launch flag, console cmd  |
| Emulator with the controller turned off, or device  | agent           | none       | none                      |
| Emulator whose found controller is another's (2)    | agent           | none       | why it is not the target's|

Taps, long presses and swipes go through the controller when it connects, a tap as its press and
lift in one call (session/input.py says why). Screenshots, keys and text go through the agent on
every path.
(2) with `Auto()` and `PathOptions.target`: the adb server is not on this host, or the discovery
file's AVD or the controller's display is not the device's (session/ownership.py).

`status_lines` writes the report
`Session.status()` returns: the agent, the active path of each kind, the keyboard, the warning and
what failed since.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from pytest_mobile_agent.emulator import Controller, Endpoint, resolve
from pytest_mobile_agent.emulator.endpoint import console_port, resolve_candidates
from pytest_mobile_agent.errors import MobileAgentError, Unavailable
from pytest_mobile_agent.session.ownership import TargetCheck, foreign_warning

log = logging.getLogger("pytest_mobile_agent.session")

TOUCH_KINDS = "taps, long presses and swipes"


@dataclass(frozen=True)
class ControllerChoice:
    """Whether to use an emulator's controller: `Auto()` resolves the endpoint from the emulator's
    discovery file, `Off()` never uses one, `Endpoint(endpoint)` uses the given one."""

    kind: Literal["auto", "off", "endpoint"]
    endpoint: Endpoint | None = None

    @classmethod
    def Auto(cls) -> ControllerChoice:  # noqa: N802 - the seed's variant names
        return cls("auto")

    @classmethod
    def Off(cls) -> ControllerChoice:  # noqa: N802
        return cls("off")

    @classmethod
    def Endpoint(cls, endpoint: Endpoint) -> ControllerChoice:  # noqa: N802
        return cls("endpoint", endpoint)


@dataclass(frozen=True)
class PathOptions:
    connect_timeout: float = 2.0
    resolve: Callable[[str], Endpoint] = resolve
    connect: Callable[[Endpoint, float], Controller] = Controller.connect
    candidates: Callable[[str], list[Endpoint]] | None = None
    """With `Auto()` and a `target`: every endpoint claiming the console port (default: each live
    discovery file's, `emulator.endpoint.resolve_candidates`), of which the target's is chosen."""
    target: TargetCheck | None = None
    """With `Auto()`, how to confirm that the controller found is the target's (session/ownership.py):
    without one, the controller is used on its console port alone."""


@dataclass(frozen=True)
class Selection:
    """The outcome of `select_paths`, for `Session.start_selected`."""

    serial: str
    emulator: bool
    choice: ControllerChoice
    controller: Controller | None = field(default=None, repr=False)
    """A connected emulator.Controller, or None: the agent carries everything."""
    warning: str | None = None


def select_paths(
    serial: str, emulator: bool, choice: ControllerChoice, options: PathOptions | None = None
) -> Selection:
    """Resolve and connect the controller where the target and the choice call for one."""
    options = options or PathOptions()
    if not emulator or choice.kind == "off":
        return Selection(serial, emulator, choice)
    check = options.target if choice.kind == "auto" else None
    if check is not None and (reason := check.remote_reason()):
        return _not_used(serial, emulator, choice, reason)
    try:
        if choice.kind == "endpoint" and choice.endpoint:
            endpoint = choice.endpoint
        elif check is None:
            endpoint = options.resolve(serial)
        else:
            chosen, reason = check.choose(_candidates(options, serial))
            if chosen is None:
                return _not_used(serial, emulator, choice, reason or "no discovery file is the target's")
            endpoint = chosen
        controller = options.connect(endpoint, options.connect_timeout)
    except Unavailable as exc:
        log.warning("%s", exc.warning())
        return Selection(serial, emulator, choice, warning=exc.warning())
    except MobileAgentError as exc:  # a timeout or a gRPC failure while connecting
        warning = Unavailable(serial, str(exc), console_port=console_port(serial)).warning()
        log.warning("%s", warning)
        return Selection(serial, emulator, choice, warning=warning)
    if check is not None and (reason := check.display_reason(endpoint, controller.hardware)):
        controller.close()
        return _not_used(serial, emulator, choice, reason)
    return Selection(serial, emulator, choice, controller=controller)


def _candidates(options: PathOptions, serial: str) -> list[Endpoint]:
    """Every endpoint claiming the serial's console port (`options.candidates`, by default all the
    live discovery files' when `options.resolve` is the default one), for the target check."""
    if options.candidates is not None:
        return options.candidates(serial)
    if options.resolve is resolve:
        return resolve_candidates(serial)
    return [options.resolve(serial)]


def _not_used(serial: str, emulator: bool, choice: ControllerChoice, reason: str) -> Selection:
    warning = foreign_warning(serial, reason)
    log.warning("%s", warning)
    return Selection(serial, emulator, choice, warning=warning)


@dataclass(frozen=True)
class StatusFacts:
    """What the status report says, gathered by the session."""

    serial: str
    agent: str
    version: str
    protocol: int
    pid: int
    socket: str
    reused: bool
    controller_url: str | None = None
    """The controller the session started with, None on the agent paths."""
    keyboard: bool = False
    frames_received: int = 0
    controller_failure: str | None = None
    frame_failures: int = 0
    last_frame_failure: str | None = None
    warning: str | None = None
    disconnected: str | None = None
    reconnect_hint: str | None = None


def status_lines(facts: StatusFacts) -> list[str]:
    """The report, one line per fact, as the seed prints it."""
    lines = [
        f"{facts.serial}: {facts.agent} {facts.version} over protocol {facts.protocol}, pid {facts.pid}, "
        f"socket {facts.socket}, {'reused' if facts.reused else 'launched'}",
        _input_line(facts),
        _frames_line(facts),
        "screenshots: agent",
        _keys_line(facts),
    ]
    if facts.warning:
        lines.append(f"warning: {facts.warning}")
    if facts.disconnected is not None:
        hint = f"; {facts.reconnect_hint}" if facts.reconnect_hint else ""
        lines.append(f"agent: disconnected ({facts.disconnected}){hint}")
    return lines


def _input_line(facts: StatusFacts) -> str:
    if facts.controller_url is None:
        return f"input: agent ({TOUCH_KINDS})"
    if facts.controller_failure is not None:
        return (
            f"input: agent ({TOUCH_KINDS}); the emulator controller at {facts.controller_url} "
            f"failed: {facts.controller_failure}"
        )
    return f"input: emulator controller at {facts.controller_url} ({TOUCH_KINDS})"


def _frames_line(facts: StatusFacts) -> str:
    if facts.controller_url is None:
        return "frames: none; screenshots come from the agent on demand"
    line = f"frames: emulator controller, {facts.frames_received} received"
    if facts.frame_failures:
        times = "once" if facts.frame_failures == 1 else f"{facts.frame_failures} times"
        line += f"; the stream failed {times} and was subscribed to again (last: {facts.last_frame_failure})"
    return line


def _keys_line(facts: StatusFacts) -> str:
    if facts.controller_url is None:
        return "keys and text: agent"
    if facts.keyboard:
        return (
            "keys and text: agent; the AVD declares a keyboard, but the controller cannot say "
            "whether the platform accepted a key"
        )
    return "keys and text: agent; the AVD declares no keyboard, so the controller would drop keys"
