"""The agent double's fixtures: a UI model (modules override `ui` with the screen they start from),
a core on it, and a welcomed host connection to the core."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from pytest_mobile_agent.virtual.agent import AgentCore
from pytest_mobile_agent.virtual.kernel.streams import Kernel
from pytest_mobile_agent.virtual.ui import EmulatorUi
from tests.support.agent_host import Host, make_core


@pytest.fixture
def ui() -> EmulatorUi:
    return EmulatorUi()


@pytest.fixture
def core(ui: EmulatorUi) -> Iterator[AgentCore]:
    agent, _ = make_core(ui)
    yield agent
    agent.stop()


@pytest.fixture
def host(core: AgentCore) -> Iterator[Host]:
    h = Host(core, Kernel())
    h.handshake()
    yield h
    h.close()
