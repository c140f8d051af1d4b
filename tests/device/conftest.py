"""The seed's task 5.1 device tests, against whatever target `--android-serial` names.

`pytest tests/device --android-serial virtual` runs them on the built-in adb endpoint,
`... --virtual-adb real` through Debian's adb server with the virtual device's adbd endpoint
attached, `--android-serial emulator-5554` on a real emulator. With no target they are skipped.

What they leave on the device (the seed's rules): files and sockets named `mobile-agent-it-*`,
deleted at the end (the deletion retried if the transport reconnects meanwhile); forward rules
removed first; a reverse rule removed only after every connection through it has closed.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from pytest_mobile_agent import errors
from pytest_mobile_agent.adb import Device
from pytest_mobile_agent.agent import AgentJar, Deployer, Records
from tests.support.on_device import HostListener, it_name


@pytest.fixture
def remote_path(device: Device) -> Iterator[str]:
    """A file path under /data/local/tmp, deleted after the test (retried once on a reconnect)."""
    path = f"/data/local/tmp/{it_name('push')}"
    yield path
    for attempt in range(3):
        try:
            device.shell(f"rm -f {path}")
            return
        except errors.AdbError:
            if attempt == 2:
                raise
            time.sleep(0.5)


@pytest.fixture
def host_listener() -> Iterator[HostListener]:
    listener = HostListener()
    yield listener
    listener.close()


@pytest.fixture
def without_this_runs_agent(device: Device, agent_jar: AgentJar, agent_records: Records) -> None:
    """The agent this run's own fixtures keep on the device (the `screen` of an earlier test, idle
    until its idle exit) stopped now: a test that deploys agents of its own first waits until no agent
    runs (the shared-device rule), which would otherwise wait out that idle exit (10 s each time, four
    times a run of this folder). The next test that needs the run's agent starts it again."""
    Deployer(device, agent_jar, agent_records).stop_recorded()
