"""The input tools. `input tap X Y`, `input swipe X1 Y1 X2 Y2 [MS]`, `input keyevent K`, `input text T`
drive the display: touches are injected as InputManager.injectInputEvent injects them (they reach
the UI and no input device, so getevent shows none of them); keys and text go to the display
content's `key(code)` / `text(s)` when it has them; HOME, 3, brings the launcher to the front; the
power keys (POWER, WAKEUP, SLEEP, and MENU on the lock screen) go to the power policy first.
`getevent [-l] [-t] [-q] [-c N] [DEVICE]` prints the display's input events, written through C
stdio as getevent does (line buffered on a pty, 4096-byte blocks on a pipe), after the `add
device` lines for /dev/input/event0 (qwerty2) and /dev/input/event1 (virtio_input_multi_touch_1)."""

from __future__ import annotations

import time

from pytest_mobile_agent.virtual.android.display import (
    KEYBOARD_DEVICE,
    KEYBOARD_NAME,
    TOUCH_DEVICE,
    TOUCH_NAME,
)
from pytest_mobile_agent.virtual.android.framework import Framework
from pytest_mobile_agent.virtual.android.power import power_key
from pytest_mobile_agent.virtual.kernel import process as pm
from pytest_mobile_agent.virtual.kernel.numbers import is_decimal


def input_(framework: Framework, proc: pm.Process) -> int:
    args = [a for a in proc.argv[1:] if a not in ("touchscreen", "-d", "0")]
    display = framework.display
    try:
        if len(args) == 3 and args[0] == "tap":
            x, y = int(float(args[1])), int(float(args[2]))
            display.inject(x, y, True)
            display.inject(x, y, False)
            return 0
        if len(args) in (5, 6) and args[0] == "swipe":
            x1, y1, x2, y2 = (int(float(a)) for a in args[1:5])
            duration = int(args[5]) / 1000 if len(args) == 6 else 0.3
            steps = max(1, int(duration / 0.008))
            display.inject(x1, y1, True)
            for step in range(1, steps + 1):
                proc.sleep(duration / steps)
                display.inject(x1 + (x2 - x1) * step // steps, y1 + (y2 - y1) * step // steps, True)
            display.inject(x2, y2, False)
            return 0
        if len(args) == 2 and args[0] == "keyevent" and (code := power_key(args[1])) is not None \
                and framework.state.power.key(code):
            return 0  # PhoneWindowManager.interceptKeyBeforeQueueing took it (android/power.py)
        if len(args) == 2 and args[0] == "keyevent" and args[1] in ("3", "KEYCODE_HOME") \
                and getattr(display.content, "key", None) is None:
            framework.activity.go_home()  # no UI model: the activity manager alone (the model tells it itself)
            return 0
        if len(args) == 2 and args[0] in ("keyevent", "text"):
            content = display.content
            handler = getattr(content, "key" if args[0] == "keyevent" else "text", None)
            if handler is not None:
                handler(args[1])
            return 0
    except ValueError:
        pass
    proc.stderr.write("Usage: input [<source>] [-d DISPLAY_ID] <command> [<arg>...]\n\n"
                      "The commands and default sources are:\n      text <string> (Default: keyboard)\n"
                      "      keyevent [--longpress|--doubletap] <key code number or name> ... (Default: keyboard)\n"
                      "      tap <x> <y> (Default: touchscreen)\n"
                      "      swipe <x1> <y1> <x2> <y2> [duration(ms)] (Default: touchscreen)\n")
    return 1


def getevent(framework: Framework, proc: pm.Process) -> int:
    args = proc.argv[1:]
    labels = "-l" in args
    stamps = "-t" in args
    quiet = "-q" in args
    count = 0
    devices = [a for a in args if a.startswith("/dev/")]
    for i, arg in enumerate(args):
        if arg == "-c" and i + 1 < len(args) and is_decimal(args[i + 1]):
            count = int(args[i + 1])
    if devices and devices[0] not in (TOUCH_DEVICE, KEYBOARD_DEVICE):
        proc.stderr.write(f"could not open {devices[0]}, No such file or directory\n")
        return 1
    out = proc.c_stdout()
    cond = proc.kernel.condition()
    pending: list[tuple[str, str, str, int | str]] = []

    def listener(event: tuple[str, str, str, int | str]) -> None:
        with proc.kernel.lock:
            pending.append(event)
            cond.notify_all()

    framework.display.add_event_listener(listener)
    proc.at_death(lambda: framework.display.remove_event_listener(listener))
    if not quiet and not devices:
        out.write(f"add device 1: {KEYBOARD_DEVICE}\n  name:     \"{KEYBOARD_NAME}\"\n")
        out.write(f"add device 2: {TOUCH_DEVICE}\n  name:     \"{TOUCH_NAME}\"\n")
    seen = 0
    started = time.monotonic()
    while True:
        with proc.kernel.lock:
            proc.wait(cond, lambda: bool(pending), None)
            batch = list(pending)
            pending.clear()
        for dev, kind, code, value in batch:
            if devices and dev != devices[0]:
                continue
            out.write(_event_line(dev, kind, code, value, labels, stamps, started, prefix=not devices))
            seen += 1
            if count and seen >= count:
                framework.display.remove_event_listener(listener)
                return 0


def _event_line(dev: str, kind: str, code: str, value: int | str, labels: bool, stamps: bool,
                started: float, *, prefix: bool) -> str:
    head = f"{dev}: " if prefix else ""
    if stamps:
        elapsed = time.monotonic() - started
        head = f"[{elapsed:14.6f}] " + head
    if labels:
        value_text = f"{value:<20}" if isinstance(value, str) else f"{value & 0xFFFFFFFF:08x}"
        return f"{head}{kind:<12} {code:<20} {value_text}\n"
    types = {"EV_SYN": 0, "EV_KEY": 1, "EV_ABS": 3}
    codes = {"SYN_REPORT": 0, "BTN_TOUCH": 0x14A, "ABS_MT_SLOT": 0x2F, "ABS_MT_TRACKING_ID": 0x39,
             "ABS_MT_POSITION_X": 0x35, "ABS_MT_POSITION_Y": 0x36, "ABS_MT_PRESSURE": 0x3A}
    number = {"DOWN": 1, "UP": 0}.get(value, 0) if isinstance(value, str) else value
    return f"{head}{types.get(kind, 0):04x} {codes.get(code, 0):04x} {number & 0xFFFFFFFF:08x}\n"
