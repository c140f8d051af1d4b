"""The stack the inspector's page shows: `stack.open_stack` with the lock held for as long as the
page is open (a test run on the same device waits for it, as it would for another worker), and on
a virtual device the fixture app started, so that a newcomer's first look shows an app."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from pytest_mobile_agent.adb import Device
from pytest_mobile_agent.cli.inspector import LOCK_WAIT
from pytest_mobile_agent.control.app_under_test import AppInstallation, AppUnderTest
from pytest_mobile_agent.mirror import Mirror
from pytest_mobile_agent.session import Session
from pytest_mobile_agent.stack import Settings, open_stack
from pytest_mobile_agent.stack.targets import AndroidTarget


@dataclass(frozen=True)
class Inspected:
    """An open target: its serial, its device, the session and the mirror the page shows."""

    serial: str
    device: Device
    session: Session
    screen: Mirror
    virtual: bool
    fixture_package: str
    fixture_activity: str
    app: AppInstallation | None = None
    """The app under test (`--app-apk` / `--app-package`), which a recording can start instead."""


@contextlib.contextmanager
def opened(settings: Settings, announce: Callable[[str], None] = lambda _: None,
           lock_wait: float = LOCK_WAIT) -> Iterator[Inspected]:
    """The target's stack, open until the block ends (stack.open_stack closes it in order), once the
    target's automation lock is free, waiting up to `lock_wait` seconds (`inspect --lock-wait`).
    `announce` hears the target, the waits, and the session's status: the agent, the input and
    frames paths (the controller named by `--emulator-controller`, or why it is not used)."""

    def show_an_app(target: AndroidTarget, device: Device) -> None:
        if target.virtual:
            AppUnderTest(device, settings.fixture_package, settings.fixture_activity).start(extras={"tab": "Login"})

    with open_stack(settings, holder=f"inspector (pid {os.getpid()})", lock_wait=lock_wait, announce=announce,
                    on_attached=show_an_app) as stack:
        for line in stack.session.status():  # the paths in use, as a test's status shows them
            announce(line)
        yield Inspected(stack.target.serial, stack.device, stack.session, stack.screen, stack.target.virtual,
                        settings.fixture_package, settings.fixture_activity, _app(settings))


def _app(settings: Settings) -> AppInstallation | None:
    installation = AppInstallation(settings.app_apk, settings.app_package, settings.app_activity)
    return installation if installation.named else None
