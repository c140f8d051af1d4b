"""Whether a stack uses the emulator's controller: `--emulator-controller auto|off|URL` made into a
`session.Selection` for one target, with `auto` confirming the controller is the target's own."""

from __future__ import annotations

import os

from pytest_mobile_agent.emulator.endpoint import TOKEN_ENV, Endpoint, parse_url
from pytest_mobile_agent.session import ControllerChoice, PathOptions, Selection, select_paths
from pytest_mobile_agent.session.ownership import TargetCheck
from pytest_mobile_agent.stack.settings import AUTO, Settings
from pytest_mobile_agent.stack.targets import AndroidTarget


def controller_setting(value: str) -> str:
    """`--emulator-controller`'s value checked, as every command takes it: `auto` or `off` (any case),
    or an endpoint URL. A URL carrying a token, or not a URL, is errors.InvalidArgument (redacted), so
    neither the settings nor any message built from them ever hold a token."""
    wanted = value.strip()
    if wanted.lower() in (AUTO, "off"):
        return wanted.lower()
    parse_url(wanted)
    return wanted


def controller_choice(wanted: str, serial: str) -> ControllerChoice:
    """`auto`, `off`, or an endpoint URL (its bearer token from MOBILE_AGENT_EMULATOR_TOKEN, never
    from the URL: a URL carrying one is errors.InvalidArgument, the token never echoed)."""
    if wanted == "off":
        return ControllerChoice.Off()
    if wanted == AUTO:
        return ControllerChoice.Auto()
    host, port = parse_url(wanted)
    token = os.environ.get(TOKEN_ENV) or None
    return ControllerChoice.Endpoint(Endpoint.at(port, host=host, token=token, serial=serial))


def target_check(target: AndroidTarget) -> TargetCheck:
    """How `auto` confirms that a controller found by console port is this target's."""
    server = target.server
    return TargetCheck(target.serial, server.host, server.address, target.device)


def select_controller(target: AndroidTarget, settings: Settings) -> Selection:
    """The target's paths: connected to its controller where the settings and the target allow.
    The caller closes `selection.controller` when it is done."""
    choice = controller_choice(settings.emulator_controller, target.serial)
    options = PathOptions(connect_timeout=settings.controller_connect_timeout, target=target_check(target))
    return select_paths(target.serial, target.emulator, choice, options)
