"""The device under the test's control: rotation, screen and lock screen, links and activities,
clipboard, notifications, location, battery, network, fingerprint, posture and appearance, each
through the emulator's controller or console where the target is an emulator and through the shell
on a device (control/paths.py), each restored when the test ends (control/journal.py).

It sits above the screen (a notification is found as the mirror sees the shade) and below the
stack, which makes one per target (`stack.control`).
"""

from __future__ import annotations

from pytest_mobile_agent.control.battery import BatteryState
from pytest_mobile_agent.control.device import DeviceControl
from pytest_mobile_agent.control.location import Coordinates
from pytest_mobile_agent.control.network import NetworkState
from pytest_mobile_agent.control.paths import ConsoleAccess, Paths
from pytest_mobile_agent.control.rotation import ORIENTATIONS, Orientation

__all__ = ["ORIENTATIONS", "BatteryState", "ConsoleAccess", "Coordinates", "DeviceControl", "NetworkState",
           "Orientation", "Paths"]
