"""The adb server client (the seed's `adb` module): a pure-Python client of the adb server protocol.

The adb binary is never spawned. See docs/architecture.md ("adb") for the API. The names load on
first use (`lazy.lazy_exports`): importing `adb.wire` or `adb.serials`, the formats the virtual
device shares with the client, runs none of the client.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pytest_mobile_agent.lazy import lazy_exports

if TYPE_CHECKING:
    from pytest_mobile_agent.adb.address import address_from_env
    from pytest_mobile_agent.adb.device import AdbStream, Device, ForwardRule
    from pytest_mobile_agent.adb.server import AdbServer
    from pytest_mobile_agent.adb.shell import ShellOutput, ShellStream, join, quote
    from pytest_mobile_agent.adb.targets import DeviceEntry, Target, advice_for, parse_devices_l

__all__ = [
    "AdbServer",
    "AdbStream",
    "Device",
    "DeviceEntry",
    "ForwardRule",
    "ShellOutput",
    "ShellStream",
    "Target",
    "address_from_env",
    "advice_for",
    "join",
    "parse_devices_l",
    "quote",
]

__getattr__, __dir__ = lazy_exports(globals(), {
    "address_from_env": "pytest_mobile_agent.adb.address",
    "AdbStream": "pytest_mobile_agent.adb.device",
    "Device": "pytest_mobile_agent.adb.device",
    "ForwardRule": "pytest_mobile_agent.adb.device",
    "AdbServer": "pytest_mobile_agent.adb.server",
    "ShellOutput": "pytest_mobile_agent.adb.shell",
    "ShellStream": "pytest_mobile_agent.adb.shell",
    "join": "pytest_mobile_agent.adb.shell",
    "quote": "pytest_mobile_agent.adb.shell",
    "DeviceEntry": "pytest_mobile_agent.adb.targets",
    "Target": "pytest_mobile_agent.adb.targets",
    "advice_for": "pytest_mobile_agent.adb.targets",
    "parse_devices_l": "pytest_mobile_agent.adb.targets",
})
