"""The host side of the on-device agent (the seed's `agent` module and its protocol crate)."""

from __future__ import annotations

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
