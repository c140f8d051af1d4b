"""The device path's commands: one shell command, its output, and a refusal in the device's words.

A platform shell command reports its failures three ways: a non-zero status, an `Error: ...` line
(the shell commands' getErrPrintWriter), or ShellCommand.exec's "Exception occurred while executing
'...':" with the exception (a SecurityException among them), some with status 0. Any of them is a
StateRefused here, carrying what the device printed.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import TypeVar

from pytest_mobile_agent.adb import Device
from pytest_mobile_agent.errors import StateRefused, Timeout

T = TypeVar("T")
REFUSALS = ("Exception occurred while executing", "SecurityException", "Error:", "Unknown command", "Bad value")
SETTLE_TIMEOUT = 5.0  # a radio or the display may take a moment to follow a change
POLL = 0.1


def run(device: Device, command: str | Sequence[str], *, what: str, advice: str | None = None) -> str:
    """The command's output (stdout and stderr); StateRefused with it when the device refused."""
    output = device.shell(command if isinstance(command, str) else list(command))
    text = (output.stdout + output.stderr).decode("utf-8", "replace").strip()
    if output.exit_code != 0 or any(marker in text for marker in REFUSALS):
        shown = command if isinstance(command, str) else " ".join(command)
        raise StateRefused(f"{what}: the device refused `{shown}`" + (f": {text}" if text else
                                                                       f" (exit status {output.exit_code})"),
                           advice=advice)
    return text


def text(device: Device, command: str | Sequence[str]) -> str:
    """The command's stdout, whatever its status (a read)."""
    return device.shell(command if isinstance(command, str) else list(command)).text()


Between = Callable[[], bool]
"""Called between a wait's checks: the screen's watchers take their look (a permission prompt in the
way is answered); True when one acted, so the wait checks again at once."""


def settle(read: Callable[[], T], wanted: Callable[[T], bool], *, timeout: float = SETTLE_TIMEOUT,
           between: Between | None = None) -> T:
    """Read until `wanted(value)` holds or `timeout` passes; the last value read either way.
    `between` runs between the reads (the watchers' look)."""
    deadline = time.monotonic() + timeout
    while True:
        value = read()
        if wanted(value) or time.monotonic() >= deadline:
            return value
        pause(between)


def wait_for(read: Callable[[], T | None], *, timeout: float, what: str, now: Callable[[], str],
             between: Between | None = None) -> T:
    """The first value `read` returns that is not None; errors.Timeout naming what was there."""
    deadline = time.monotonic() + timeout
    while True:
        value = read()
        if value is not None:
            return value
        if time.monotonic() >= deadline:
            raise Timeout(what, timeout, detail=now())
        pause(between)


def pause(between: Between | None, interval: float = POLL) -> None:
    """The pause between two checks of a wait: `between` first (the watchers' look), then the rest
    of `interval`, unless `between` acted (the next check comes at once)."""
    started = time.monotonic()
    if between is not None and between():
        return
    time.sleep(max(0.0, interval - (time.monotonic() - started)))
