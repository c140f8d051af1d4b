"""The device's single UI-automation slot (the accessibility manager's UiTestAutomationService).

One client at a time: `acquire(pid, label)` is False while another live process holds it (the
client then fails with the platform's "UiAutomationService ... already registered!"). A holder
that dies releases the slot, as the binder death of its connection does on the device
(UiAutomationManager's death recipient), and so does `release` (unregistering the client).

`acquire` also stores the display's rotation state, as UiAutomationConnection.connect does
(storeRotationStateLocked: the rotation, when it is frozen), and `disconnect` puts it back, as
UiAutomation.disconnect() does (restoreRotationStateLocked: freezeRotation of that rotation, else
thawRotation), undoing any rotation set meanwhile. The agent never disconnects.
"""

from __future__ import annotations

import secrets

from pytest_mobile_agent.virtual.android.display import Display
from pytest_mobile_agent.virtual.kernel.process import ProcessTable
from pytest_mobile_agent.virtual.kernel.streams import Kernel

ALREADY_REGISTERED = (
    "java.lang.IllegalStateException: UiAutomationService "
    "android.accessibilityservice.IAccessibilityServiceClient$Stub$Proxy@{proxy}already registered!"
)


def already_registered_message() -> str:
    """The platform's message, with a fresh proxy hash as each call shows one."""
    return ALREADY_REGISTERED.format(proxy=secrets.token_hex(4)[1:])


class AutomationSlot:
    def __init__(self, kernel: Kernel, processes: ProcessTable, display: Display) -> None:
        self.kernel = kernel
        self.processes = processes
        self.display = display
        self._holder: tuple[int, str] | None = None
        self._frozen_rotation: int | None = None  # INITIAL_FROZEN_ROTATION_UNSPECIFIED

    def acquire(self, pid: int, label: str) -> bool:
        with self.kernel.lock:
            if self._holder is not None:
                holder_pid = self._holder[0]
                alive = self.processes.get(holder_pid) is not None
                if alive and holder_pid != pid:
                    return False
            self._holder = (pid, label)
            display = self.display
            self._frozen_rotation = display.rotation if display.rotation_frozen else None
            proc = self.processes.get(pid)
            if proc is not None:
                proc.at_death(lambda: self.release(pid))
            return True

    def release(self, pid: int) -> None:
        with self.kernel.lock:
            if self._holder is not None and self._holder[0] == pid:
                self._holder = None

    def disconnect(self, pid: int) -> None:
        """UiAutomation.disconnect(): release the slot and restore the rotation state of the connect."""
        with self.kernel.lock:
            if self._holder is None or self._holder[0] != pid:
                return
            self._holder = None
        if self._frozen_rotation is not None:
            self.display.freeze_rotation(self._frozen_rotation)
        else:
            self.display.thaw_rotation()

    def holder(self) -> tuple[int, str] | None:
        with self.kernel.lock:
            if self._holder is not None and self.processes.get(self._holder[0]) is None:
                self._holder = None
            return self._holder
