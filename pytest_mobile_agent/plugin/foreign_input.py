"""Input the test did not send: touches and key presses on the device's evdev input devices.

What is provable, and how (issue 16, item 1):

* The agent injects its input through UiAutomation (InputManager.injectInputEvent), which never
  passes through the kernel's input devices; `adb shell input` injects the same way. So on the
  agent path the test's own input never shows in `getevent`.
* The emulator's controller (gRPC sendTouch) and a person at the emulator's window, or a finger on
  a device's screen, both arrive on the touchscreen's evdev device: `getevent` shows them, and
  cannot tell them apart. What tells them apart is the count: the session knows how many contacts
  (taps, long presses, swipes) it sent through the controller, and every contact starts with one
  ABS_MT_TRACKING_ID other than ffffffff. More contacts than that is input the test did not send.
  Keys never go through the controller (session/input.py), so any key press on an evdev device is
  someone else's.
* Not provable: input another tool injects (`adb shell input tap` from another host, another
  UiAutomation client) leaves no evdev trace; another agent or UI-automation holder is caught by
  the process list instead (policy.py). The emulator controller's event stream only goes from the
  client to the emulator: no client hears another client's touches there.

`InputWatch.start(device)` runs `getevent -l` on a pty (so every line is flushed) for the session,
reading it on a thread; `mark()` at a test's start and `foreign_since(mark, sent_contacts)` at its
failure.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from dataclasses import dataclass

from pytest_mobile_agent.adb import Device, ShellStream

log = logging.getLogger("pytest_mobile_agent.plugin.foreign_input")

GETEVENT = "getevent -l"
READY_TIMEOUT = 1.0
NO_CONTACT = "ffffffff"


@dataclass(frozen=True)
class Mark:
    contacts: dict[str, int]  # contacts started so far, per input device
    keys: int


class EvdevCounter:
    """Counts contacts and key presses in `getevent -l` lines, per input device."""

    def __init__(self) -> None:
        self.contacts: dict[str, int] = {}
        self.keys: dict[str, int] = {}
        self.devices: list[str] = []

    def feed(self, line: str) -> None:
        if line.startswith("add device"):
            self.devices.append(line.split(": ", 1)[-1].strip())
            return
        device, _, event = line.partition(": ")
        fields = event.split()
        if not device.startswith("/dev/input/") or len(fields) != 3:
            return
        kind, code, value = fields
        if kind == "EV_ABS" and code == "ABS_MT_TRACKING_ID" and value.lower() != NO_CONTACT:
            self.contacts[device] = self.contacts.get(device, 0) + 1
        elif kind == "EV_KEY" and value == "DOWN" and not code.startswith("BTN_"):
            self.keys[device] = self.keys.get(device, 0) + 1

    def mark(self) -> Mark:
        return Mark(dict(self.contacts), sum(self.keys.values()))


class InputWatch:
    """`getevent -l` on the target for the session; see the module's doc."""

    def __init__(self, stream: ShellStream) -> None:
        self._stream = stream
        self._counter = EvdevCounter()
        self._lock = threading.Lock()
        self._ready = threading.Event()
        self._touch_devices: set[str] = set()
        self._thread = threading.Thread(target=self._read, name="mobile-agent getevent", daemon=True)
        self._thread.start()

    @classmethod
    def start(cls, device: Device) -> InputWatch | None:
        """The watch, or None where getevent cannot run or opens no input device."""
        try:
            stream = device.shell_stream_with(GETEVENT, pty=True)
        except Exception as exc:  # noqa: BLE001 - no watch is no evidence, never a failure
            log.info("no input watch on %s: %s", device.serial, exc)
            return None
        watch = cls(stream)
        if not watch._ready.wait(READY_TIMEOUT) or not watch._counter.devices:
            watch.close()
            return None
        return watch

    def _read(self) -> None:
        with contextlib.suppress(Exception):
            while (line := self._stream.read_line(None)) is not None:
                with self._lock:
                    self._counter.feed(line)
                if line.startswith("add device"):
                    self._ready.set()
        self._ready.set()

    def mark(self) -> Mark:
        with self._lock:
            return self._counter.mark()

    def foreign_since(self, mark: Mark, sent_contacts: int) -> str | None:
        """What input arrived since `mark` beyond the `sent_contacts` the test sent through the
        controller, or None."""
        time.sleep(0.05)  # lines of the last moments still on their way from the device
        with self._lock:
            now = self._counter.mark()
        new = {d: n - mark.contacts.get(d, 0) for d, n in now.contacts.items() if n > mark.contacts.get(d, 0)}
        touches = sum(new.values()) - sent_contacts
        keys = now.keys - mark.keys
        parts = []
        if touches > 0:
            where = ", ".join(sorted(new))
            sent = f"{sent_contacts}" if sent_contacts else "none"
            parts.append(f"{touches} touch{'es' if touches > 1 else ''} on {where} that the test did not send "
                         f"(the test sent {sent} through the emulator controller)")
        if keys > 0:
            parts.append(f"{keys} key press{'es' if keys > 1 else ''} on an input device (the test sends keys "
                         "through the agent, never there)")
        return "; ".join(parts) or None

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self._stream.close()
