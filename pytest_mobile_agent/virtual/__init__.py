"""The virtual device: a faithful double of an API 36 emulator, behind an adb-server endpoint and an
adbd endpoint on loopback (see docs/architecture.md, "virtual").

``VirtualLab.start(count)`` serves ``count`` devices; ``python -m pytest_mobile_agent.virtual`` does
the same from a shell; ``pytest --android-serial virtual`` starts one for a test session.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pytest_mobile_agent.lazy import lazy_exports
from pytest_mobile_agent.virtual.lab import VirtualLab

if TYPE_CHECKING:
    from pytest_mobile_agent.virtual.device import VirtualDevice

__all__ = ["VirtualDevice", "VirtualLab"]


__getattr__, __dir__ = lazy_exports(globals(), {
    # the device model (and the UI model, Pillow, ...) loads on first use, not on import
    "VirtualDevice": "pytest_mobile_agent.virtual.device",
})
