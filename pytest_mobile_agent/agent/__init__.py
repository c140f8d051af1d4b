"""The host side of the on-device agent (the seed's `agent` module and its protocol crate).

The names load on first use (`lazy.lazy_exports`): importing `agent.protocol`, the frame codec the
virtual device's agent double shares with the host, runs none of the deployer or the connection.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pytest_mobile_agent.lazy import lazy_exports

if TYPE_CHECKING:
    from pytest_mobile_agent.agent.connection import Connection, ConnectionEvent, EventSink
    from pytest_mobile_agent.agent.deploy import (
        AgentState,
        Attached,
        Deployer,
        DeployOptions,
        Launched,
        Outcome,
        Reused,
    )
    from pytest_mobile_agent.agent.jar import AgentJar
    from pytest_mobile_agent.agent.launch import AgentProcess, Holder
    from pytest_mobile_agent.agent.protocol import (
        PROTOCOLS,
        Disconnection,
        FrameDecoder,
        Hello,
        HostSession,
        OutOfSync,
        ProtocolEvent,
        Resynced,
    )
    from pytest_mobile_agent.agent.records import Record, Records

__all__ = [
    "PROTOCOLS",
    "AgentJar",
    "AgentProcess",
    "AgentState",
    "Attached",
    "Connection",
    "ConnectionEvent",
    "DeployOptions",
    "Deployer",
    "Disconnection",
    "EventSink",
    "FrameDecoder",
    "Hello",
    "Holder",
    "HostSession",
    "Launched",
    "OutOfSync",
    "Outcome",
    "ProtocolEvent",
    "Record",
    "Records",
    "Resynced",
    "Reused",
]

__getattr__, __dir__ = lazy_exports(globals(), {
    "Connection": "pytest_mobile_agent.agent.connection",
    "ConnectionEvent": "pytest_mobile_agent.agent.connection",
    "EventSink": "pytest_mobile_agent.agent.connection",
    "AgentState": "pytest_mobile_agent.agent.deploy",
    "Attached": "pytest_mobile_agent.agent.deploy",
    "Deployer": "pytest_mobile_agent.agent.deploy",
    "DeployOptions": "pytest_mobile_agent.agent.deploy",
    "Launched": "pytest_mobile_agent.agent.deploy",
    "Outcome": "pytest_mobile_agent.agent.deploy",
    "Reused": "pytest_mobile_agent.agent.deploy",
    "AgentJar": "pytest_mobile_agent.agent.jar",
    "AgentProcess": "pytest_mobile_agent.agent.launch",
    "Holder": "pytest_mobile_agent.agent.launch",
    "PROTOCOLS": "pytest_mobile_agent.agent.protocol",
    "Disconnection": "pytest_mobile_agent.agent.protocol",
    "FrameDecoder": "pytest_mobile_agent.agent.protocol",
    "Hello": "pytest_mobile_agent.agent.protocol",
    "HostSession": "pytest_mobile_agent.agent.protocol",
    "OutOfSync": "pytest_mobile_agent.agent.protocol",
    "ProtocolEvent": "pytest_mobile_agent.agent.protocol",
    "Resynced": "pytest_mobile_agent.agent.protocol",
    "Record": "pytest_mobile_agent.agent.records",
    "Records": "pytest_mobile_agent.agent.records",
})
