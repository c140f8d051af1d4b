"""The session: an attached agent, and the controller when there is one, behind the mirror's
backends (the seed's `session`, design D5 and D7, tasks 5.3 and 5.5)."""

from __future__ import annotations

from pytest_mobile_agent.session.backends import (
    Ack,
    Backend,
    Disconnection,
    EventBackend,
    EventsLost,
    FrameBackend,
    FrameEvent,
    InputBackend,
    Node,
    OutOfSync,
    ProtocolEvent,
    ReadReason,
    Release,
    Resynced,
    Screenshot,
    Scroll,
    SessionEvent,
    Snapshot,
    TreeBackend,
    Window,
    WindowMetadata,
)
from pytest_mobile_agent.session.path_selection import (
    ControllerChoice,
    PathOptions,
    Selection,
    StatusFacts,
    select_paths,
    status_lines,
)
from pytest_mobile_agent.session.session import BackendTaken, Session, read_scale
from pytest_mobile_agent.session.tree import TreeOptions, scale_from_wm_density

__all__ = [
    "Ack",
    "Backend",
    "BackendTaken",
    "ControllerChoice",
    "Disconnection",
    "EventBackend",
    "EventsLost",
    "FrameBackend",
    "FrameEvent",
    "InputBackend",
    "Node",
    "OutOfSync",
    "PathOptions",
    "ProtocolEvent",
    "ReadReason",
    "Release",
    "Resynced",
    "Screenshot",
    "Scroll",
    "Selection",
    "Session",
    "SessionEvent",
    "Snapshot",
    "StatusFacts",
    "TreeBackend",
    "TreeOptions",
    "Window",
    "WindowMetadata",
    "read_scale",
    "scale_from_wm_density",
    "select_paths",
    "status_lines",
]
