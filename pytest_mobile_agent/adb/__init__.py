"""The adb server client (the seed's `adb` module): a pure-Python client of the adb server protocol.

The adb binary is never spawned. See docs/architecture.md ("adb") for the API.
"""

from __future__ import annotations

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
