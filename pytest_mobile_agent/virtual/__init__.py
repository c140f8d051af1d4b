"""The virtual device: a faithful double of an API 36 emulator, behind an adb-server endpoint and an
adbd endpoint on loopback (see docs/architecture.md, "virtual").

``VirtualLab.start(count)`` serves ``count`` devices; ``python -m pytest_mobile_agent.virtual`` does
the same from a shell; ``pytest --android-serial virtual`` starts one for a test session.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pytest_mobile_agent.virtual.lab import VirtualLab

if TYPE_CHECKING:
    from pytest_mobile_agent.virtual.device import VirtualDevice

__all__ = ["VirtualDevice", "VirtualLab"]


def __getattr__(name: str) -> Any:
    # The device model (and the UI model, Pillow, ...) loads on first use, not on import.
    if name == "VirtualDevice":
        from pytest_mobile_agent.virtual.device import VirtualDevice

        return VirtualDevice
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
