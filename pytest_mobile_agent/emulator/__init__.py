"""The client for the emulator's gRPC controller, the emulator fast path (the seed's `emulator`).

It knows nothing of adb or agents. `resolve(serial)` reads the emulator's discovery file,
`Controller.connect(endpoint)` opens the two connections and reads the hardware, and the frame
change detector leaves the status bar out. `PROTO_SOURCE` says which proto the driver speaks and
whether the installed emulator's copy declares anything different for the messages it uses.
"""

from __future__ import annotations

from typing import Any

from pytest_mobile_agent.emulator.controller import Controller, FrameStream, StreamStats
from pytest_mobile_agent.emulator.discovery import DiscoveryFile, candidate_dirs, parse_ini
from pytest_mobile_agent.emulator.endpoint import Endpoint, console_port, resolve
from pytest_mobile_agent.emulator.frame import ChangeDetector, Frame, FrameHasher, status_bar_rows
from pytest_mobile_agent.emulator.hardware import Hardware
from pytest_mobile_agent.emulator.proto_source import ProtoSource

__all__ = [
    "PROTO_SOURCE",
    "ChangeDetector",
    "Controller",
    "DiscoveryFile",
    "Endpoint",
    "Frame",
    "FrameHasher",
    "FrameStream",
    "Hardware",
    "ProtoSource",
    "StreamStats",
    "candidate_dirs",
    "console_port",
    "parse_ini",
    "resolve",
    "status_bar_rows",
]


def __getattr__(name: str) -> Any:
    # PROTO_SOURCE looks for the SDK's proto and parses it: done on first use, not at import.
    if name == "PROTO_SOURCE":
        from pytest_mobile_agent.emulator.proto_source import proto_source

        return proto_source()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
