"""The driver's stack opened outside pytest, for the inspector: what the `screen` fixture stands on.

The same pieces the fixtures wire, in the same order: the target (a virtual device started for the
inspector when it is `virtual`), the automation lock held for as long as the page is open (a test
run on the same device waits for it, as it would for another worker), the resident agent, the
controller where there is one, the session and a mirror.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from pytest_mobile_agent import errors
from pytest_mobile_agent.adb import Device
from pytest_mobile_agent.agent import AgentJar, Attached, Deployer, DeployOptions, Records
from pytest_mobile_agent.agent.records import default_records_dir
from pytest_mobile_agent.app import AppInstallation, AppUnderTest
from pytest_mobile_agent.mirror import Mirror
from pytest_mobile_agent.options import Settings
from pytest_mobile_agent.session import ControllerChoice, PathOptions, Session, select_paths
from pytest_mobile_agent.session.ownership import TargetCheck
from pytest_mobile_agent.userfiles import private_dir

LOCK_WAIT = 30.0
"""Seconds the inspector waits for a test run to let go of the device before it gives up."""
FIXTURE_PACKAGE = "dev.mobileagent.fixture"
FIXTURE_ACTIVITY = ".MainActivity"


@dataclass(frozen=True)
class Inspected:
    """An open target: its serial, its device, the session and the mirror the page shows."""

    serial: str
    device: Device
    session: Session
    screen: Mirror
    virtual: bool
    fixture_package: str = FIXTURE_PACKAGE
    fixture_activity: str = FIXTURE_ACTIVITY
    app: AppInstallation | None = None
    """The app under test (`--app-apk` / `--app-package`), which a recording can start instead."""


def settings_for(serial: str, *, controller: str = "auto", agent_jar: Path | None = None,
                 virtual_adb: str = "builtin", app_apk: Path | None = None, app_package: str | None = None,
                 app_activity: str | None = None) -> Settings:
    """The plugin's settings for one target, as the command line names it."""
    return Settings(serials=(serial,), require_device=True, emulator_controller=controller, agent_jar=agent_jar,
                    agent_force=False, records_dir=default_records_dir(), quiet_wait=0.0, disturbance_runs=1,
                    virtual_adb=virtual_adb, fixture_package=FIXTURE_PACKAGE, fixture_activity=FIXTURE_ACTIVITY,
                    app_apk=app_apk, app_package=app_package, app_activity=app_activity)


@contextlib.contextmanager
def opened(settings: Settings, announce: Callable[[str], None] = lambda _: None) -> Iterator[Inspected]:
    """The target's stack, open until the block ends; then the session detaches (the agent stays
    resident, as after a test), the lock is released and a virtual device started here stops."""
    from pytest_mobile_agent.fixtures import TargetProvider, target_check

    provider = TargetProvider(settings)
    try:
        target = provider.target()
        device = target.server.device(target.serial)
        announce(f"target {target.serial} on the adb server at {target.server.address}")
        with target.automation_lock().held(f"inspector (pid {os.getpid()})", LOCK_WAIT, on_wait=announce):
            records = Records.in_dir(private_dir(provider.records_dir()), server=target.server.address)
            jar = _jar(settings, target.runs_stand_in, announce)
            attached = Deployer(device, jar, records, DeployOptions(
                liveness_timeout=settings.agent_liveness, kill_timeout=settings.agent_kill_wait)).attach()
            try:
                if target.virtual:  # a newcomer's first look shows an app, not the launcher
                    AppUnderTest(device, settings.fixture_package, settings.fixture_activity).start(extras={"tab": "Login"})
                with _session(settings, target.serial, target.emulator, attached, device,
                              target_check(target)) as session:
                    yield Inspected(target.serial, device, session, Mirror(session.backend()), target.virtual,
                                    settings.fixture_package, settings.fixture_activity, _app(settings))
            finally:
                attached.connection.close()
    finally:
        provider.close()


def _app(settings: Settings) -> AppInstallation | None:
    installation = AppInstallation(settings.app_apk, settings.app_package, settings.app_activity)
    return installation if installation.named else None


def _jar(settings: Settings, stand_in: bool, announce: Callable[[str], None]) -> AgentJar:
    if settings.agent_jar is not None:
        return AgentJar.from_path(settings.agent_jar)
    return AgentJar.stand_in() if stand_in else AgentJar.locate(announce=announce)


@contextlib.contextmanager
def _session(settings: Settings, serial: str, emulator: bool, attached: Attached, device: Device,
             check: TargetCheck | None = None) -> Iterator[Session]:
    """The session on the agent and, where `--emulator-controller` and the target allow, the
    controller (with `auto`, once `check` confirms it is the target's)."""
    if settings.emulator_controller not in ("auto", "off"):
        raise errors.InvalidArgument("the inspector takes --emulator-controller auto or off")
    choice = ControllerChoice.Auto() if settings.emulator_controller == "auto" else ControllerChoice.Off()
    selection = select_paths(serial, emulator, choice,
                             PathOptions(connect_timeout=settings.controller_connect_timeout, target=check))
    session = Session.start(attached, controller=selection.controller, device=device, serial=serial,
                            warning=selection.warning)
    try:
        yield session
    finally:
        session.detach()
        if selection.controller is not None:
            selection.controller.close()
