"""The device under the test's control: rotation, screen and lock screen, links and activities,
clipboard, notifications, location, battery, network, fingerprint, posture and appearance, each
through the emulator's controller or console where the target is an emulator and through the shell
on a device (control/means.py), each restored when the test ends (control/journal.py).

It sits above the screen (a notification is found as the mirror sees the shade) and below the
stack, which makes one per target (`stack.control`). Its names load on first use (PEP 562), so the
app handle's use of `control.activities` loads neither the mirror nor the emulator client.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pytest_mobile_agent.lazy import lazy_exports

if TYPE_CHECKING:
    from pytest_mobile_agent.control.battery import BatteryState
    from pytest_mobile_agent.control.device import DeviceControl
    from pytest_mobile_agent.control.location import Coordinates
    from pytest_mobile_agent.control.means import ConsoleAccess, Paths
    from pytest_mobile_agent.control.network import NetworkState
    from pytest_mobile_agent.control.rotation import ORIENTATIONS, Orientation

__getattr__, __dir__ = lazy_exports(globals(), {
    "BatteryState": "pytest_mobile_agent.control.battery",
    "DeviceControl": "pytest_mobile_agent.control.device",
    "Coordinates": "pytest_mobile_agent.control.location",
    "NetworkState": "pytest_mobile_agent.control.network",
    "ConsoleAccess": "pytest_mobile_agent.control.means",
    "Paths": "pytest_mobile_agent.control.means",
    "ORIENTATIONS": "pytest_mobile_agent.control.rotation",
    "Orientation": "pytest_mobile_agent.control.rotation",
})

__all__ = ["ORIENTATIONS", "BatteryState", "ConsoleAccess", "Coordinates", "DeviceControl", "NetworkState",
           "Orientation", "Paths"]
