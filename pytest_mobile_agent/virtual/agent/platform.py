"""The platform seam of the agent double (the Java agent's `platform/`): what the agent needs of
the device besides its protocol, and how its threads are scheduled.

Every thread of the agent (connection readers, request workers, the event pump, gesture playback)
runs through the platform's `Gate`: while the process is stopped (SIGSTOP) none of them reads,
sends or injects anything, as no thread of a stopped process runs; SIGCONT lets them go on.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from pytest_mobile_agent import errors
from pytest_mobile_agent.virtual.android.automation import AutomationSlot
from pytest_mobile_agent.virtual.android.display import Display
from pytest_mobile_agent.virtual.android.framework import AppProcessMain
from pytest_mobile_agent.virtual.kernel.fs import FileSystem
from pytest_mobile_agent.virtual.kernel.process import Process
from pytest_mobile_agent.virtual.kernel.sockets import SocketNamespace
from pytest_mobile_agent.virtual.ui.model import UiModel


class AgentHost(Protocol):
    """What the agent double reaches of the device it runs on (a VirtualDevice is one): the file it
    started from, its abstract socket, the UI-automation slot, the display's rotation, the UI model,
    logcat, and app_process's table of main classes, where it registers."""

    @property
    def fs(self) -> FileSystem: ...

    @property
    def sockets(self) -> SocketNamespace: ...

    @property
    def automation(self) -> AutomationSlot: ...

    @property
    def display(self) -> Display: ...

    @property
    def ui(self) -> UiModel: ...

    @property
    def app_process_mains(self) -> dict[str, AppProcessMain]: ...

    def log(self, tag: str, message: str) -> None: ...


class Gate(Protocol):
    """How the agent's threads are scheduled: each one passes here before it acts, and blocks
    through it (the device's `Waiter` protocol), so none runs while the process is stopped."""

    def pause(self) -> None:
        """Return once the process may run (at once unless it is stopped)."""
        ...

    def wait(self, cond: threading.Condition, ready: Callable[[], bool], deadline: float | None) -> bool:
        """Wait (`cond`'s lock held) until ready() or the deadline, not running while stopped."""
        ...

    def sleep_until(self, when: float) -> None:
        """Sleep until the monotonic time `when`, and on while the process is stopped."""
        ...


class Running:
    """The gate of a core that is no process's (unit tests, benches): never stopped."""

    def pause(self) -> None:
        return None

    def wait(self, cond: threading.Condition, ready: Callable[[], bool], deadline: float | None) -> bool:
        while not ready():
            remaining = None if deadline is None else deadline - time.monotonic()
            if remaining is not None and remaining <= 0:
                return False
            cond.wait(remaining)
        return True

    def sleep_until(self, when: float) -> None:
        sleep_until(when)


class ProcessGate:
    """The gate of an agent process of the virtual device: its threads wait while the process is
    stopped (SIGSTOP) and go on at SIGCONT; once it is dead a wait fails with errors.Closed.

    The stop is waited out on the process's own condition, which the kernel notifies at every
    signal it delivers and at the process's death (`Process.deliver`, `ProcessTable.exit`)."""

    def __init__(self, proc: Process) -> None:
        self.proc = proc
        self.lock = proc.kernel.lock

    def pause(self) -> None:
        with self.lock:
            while self.proc.stopped and not self.proc.dead:
                self.proc.cond.wait()

    def wait(self, cond: threading.Condition, ready: Callable[[], bool], deadline: float | None) -> bool:
        proc = self.proc
        with self.lock:
            while True:
                if proc.dead:
                    raise errors.Closed(f"the agent's process {proc.pid} has ended")
                if proc.stopped:
                    proc.cond.wait()
                    continue
                if ready():
                    return True
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    return False
                cond.wait(remaining)

    def sleep_until(self, when: float) -> None:
        self.wait(self.proc.cond, lambda: False, when)


@dataclass
class Platform:
    """What the core needs of the device besides the UI model."""

    ui: UiModel
    #: the display: width, height, density and rotation (0..3)
    display: Callable[[], dict[str, int]]
    #: a `MOBILE_AGENT_LOG` diagnostic on standard output (ignoring a closed stdout)
    diagnostic: Callable[[str], None] = lambda line: None
    #: logcat
    logcat: Callable[[str, str], None] = lambda tag, msg: None
    #: the scheduling of the agent's threads (the process's, so SIGSTOP stops them)
    gate: Gate = field(default_factory=Running)
    #: reading UiAutomation's HARDWARE screenshot bitmap back fails here (API 33/34 in a shell
    #: process): screenshots come from screencap (docs/agent-android.md, "Screenshots")
    hardware_read_back_fails: bool = False
    #: reading it back fails silently: HWUI's Bitmap::getSkBitmap ignores the failed GPU copy, so
    #: the bitmap is all zero (libs/hwui/hwui/Bitmap.cpp); the agent samples it and takes screencap
    hardware_read_back_black: bool = False


def sleep_until(when: float) -> None:
    remaining = when - time.monotonic()
    if remaining > 0:
        time.sleep(remaining)
