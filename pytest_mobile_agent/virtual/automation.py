"""The device's single UI-automation slot (the accessibility manager's UiTestAutomationService).

One client at a time: `acquire(pid, label)` is False while another live process holds it (the
client then fails with the platform's "UiAutomationService ... already registered!"). A holder
that dies releases the slot, as the binder death of its connection does on the device.
"""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pytest_mobile_agent.virtual.device import VirtualDevice

ALREADY_REGISTERED = (
    "java.lang.IllegalStateException: UiAutomationService "
    "android.accessibilityservice.IAccessibilityServiceClient$Stub$Proxy@{proxy}already registered!"
)


def already_registered_message() -> str:
    """The platform's message, with a fresh proxy hash as each call shows one."""
    return ALREADY_REGISTERED.format(proxy=secrets.token_hex(4)[1:])


class AutomationSlot:
    def __init__(self, device: VirtualDevice) -> None:
        self.device = device
        self._holder: tuple[int, str] | None = None

    def acquire(self, pid: int, label: str) -> bool:
        with self.device.kernel.lock:
            if self._holder is not None:
                holder_pid = self._holder[0]
                alive = self.device.processes.get(holder_pid) is not None
                if alive and holder_pid != pid:
                    return False
            self._holder = (pid, label)
            proc = self.device.processes.get(pid)
            if proc is not None:
                proc.at_death(lambda: self.release(pid))
            return True

    def release(self, pid: int) -> None:
        with self.device.kernel.lock:
            if self._holder is not None and self._holder[0] == pid:
                self._holder = None

    def holder(self) -> tuple[int, str] | None:
        with self.device.kernel.lock:
            if self._holder is not None and self.device.processes.get(self._holder[0]) is None:
                self._holder = None
            return self._holder
