"""The client for the emulator's gRPC controller, the emulator fast path (the seed's `emulator`).

It knows nothing of adb or agents. `resolve(serial)` reads the emulator's discovery file,
`Controller.connect(endpoint)` opens the two connections and reads the hardware, and the frame
change detector leaves the status bar out. `PROTO_SOURCE` says which proto the driver speaks and
whether the installed emulator's copy declares anything different for the messages it uses.

The names load on first use (`lazy.lazy_exports`): importing `emulator.discovery` or `emulator._proto`,
which the virtual device's controller double shares with the client, runs none of the client.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pytest_mobile_agent.lazy import lazy_exports

if TYPE_CHECKING:
    from pytest_mobile_agent.emulator.controller import Controller, FrameStream, StreamStats
    from pytest_mobile_agent.emulator.discovery import DiscoveryFile, candidate_dirs, parse_ini
    from pytest_mobile_agent.emulator.endpoint import Endpoint, console_port, resolve
    from pytest_mobile_agent.emulator.frame import ChangeDetector, Frame, FrameHasher, status_bar_rows
    from pytest_mobile_agent.emulator.hardware import Hardware
    from pytest_mobile_agent.emulator.proto_source import ProtoSource

    PROTO_SOURCE: ProtoSource

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

__getattr__, __dir__ = lazy_exports(globals(), {
    "Controller": "pytest_mobile_agent.emulator.controller",
    "FrameStream": "pytest_mobile_agent.emulator.controller",
    "StreamStats": "pytest_mobile_agent.emulator.controller",
    "DiscoveryFile": "pytest_mobile_agent.emulator.discovery",
    "candidate_dirs": "pytest_mobile_agent.emulator.discovery",
    "parse_ini": "pytest_mobile_agent.emulator.discovery",
    "Endpoint": "pytest_mobile_agent.emulator.endpoint",
    "console_port": "pytest_mobile_agent.emulator.endpoint",
    "resolve": "pytest_mobile_agent.emulator.endpoint",
    "ChangeDetector": "pytest_mobile_agent.emulator.frame",
    "Frame": "pytest_mobile_agent.emulator.frame",
    "FrameHasher": "pytest_mobile_agent.emulator.frame",
    "status_bar_rows": "pytest_mobile_agent.emulator.frame",
    "Hardware": "pytest_mobile_agent.emulator.hardware",
    "ProtoSource": "pytest_mobile_agent.emulator.proto_source",
    # the SDK's proto is looked for and parsed on first use, not at import
    "PROTO_SOURCE": "pytest_mobile_agent.emulator.proto_source:proto_source()",
})
