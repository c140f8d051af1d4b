"""getevent's C stdio buffering and the display's touchscreen events; uiautomator's slot."""

from __future__ import annotations

import time

from pytest_mobile_agent.virtual.device import VirtualDevice
from tests.support.polling import wait_until
from tests.support.virtual_shell import ShellClient

TOUCH_LINES = (
    b"/dev/input/event1: EV_ABS       ABS_MT_SLOT          00000000\r\n"
    b"/dev/input/event1: EV_ABS       ABS_MT_TRACKING_ID   00000000\r\n"
    b"/dev/input/event1: EV_ABS       ABS_MT_POSITION_X    000000fa\r\n"
    b"/dev/input/event1: EV_ABS       ABS_MT_POSITION_Y    00000032\r\n"
    b"/dev/input/event1: EV_ABS       ABS_MT_PRESSURE      00000400\r\n"
    b"/dev/input/event1: EV_KEY       BTN_TOUCH            DOWN                \r\n"
    b"/dev/input/event1: EV_SYN       SYN_REPORT           00000000\r\n"
)


def getevent_running(vdev: VirtualDevice) -> bool:
    return any(p.argv[:1] == ["getevent"] for p in vdev.processes.processes())


def test_getevent_on_a_pty_flushes_every_line(vdev: VirtualDevice) -> None:
    client = ShellClient(vdev, "getevent -l", pty=True)
    assert wait_until(lambda: getevent_running(vdev) and bool(vdev.display._event_listeners))
    vdev.display.touch(250, 50, True)
    client.read_until(b"SYN_REPORT")
    assert TOUCH_LINES in bytes(client.stdout)
    assert bytes(client.stdout).startswith(b'add device 1: /dev/input/event0\r\n  name:     "qwerty2"\r\n')
    client.close()
    assert wait_until(lambda: not getevent_running(vdev), 1.0)  # SIGHUP on close


def test_getevent_on_a_pipe_buffers_in_4096_byte_blocks(vdev: VirtualDevice) -> None:
    client = ShellClient(vdev, "getevent -l")
    assert wait_until(lambda: getevent_running(vdev) and bool(vdev.display._event_listeners))
    vdev.display.touch(250, 50, True)
    vdev.display.touch(250, 50, False)
    assert not client.pump(0.1)  # nothing yet: the lines sit in stdio's buffer
    taps = 0
    while not client.stdout:
        taps += 1
        vdev.display.touch(250 + taps % 2 * 50, 50 + taps % 2 * 20, True)
        vdev.display.touch(250 + taps % 2 * 50, 50 + taps % 2 * 20, False)
        client.pump(0.01)
    time.sleep(0.05)
    client.pump(0.05)
    assert len(client.stdout) == 4096 and taps >= 4  # about 700 bytes a tap


def test_evdev_drops_a_position_equal_to_the_last_contacts(vdev: VirtualDevice) -> None:
    events: list[tuple[str, str, str, object]] = []
    vdev.display.add_event_listener(events.append)
    vdev.display.touch(250, 50, True)
    vdev.display.touch(250, 50, False)
    events.clear()
    vdev.display.touch(250, 50, True)
    assert not [e for e in events if e[2].startswith("ABS_MT_POSITION")]
    vdev.display.touch(300, 70, True)
    assert [(e[2], e[3]) for e in events if e[2].startswith("ABS_MT_POSITION")] == [
        ("ABS_MT_POSITION_X", 300),
        ("ABS_MT_POSITION_Y", 70),
    ]


def test_input_tap_reaches_the_touchscreen(vdev: VirtualDevice) -> None:
    touches: list[tuple[int, int, bool]] = []
    vdev.display.add_touch_listener(lambda x, y, pressed: touches.append((x, y, pressed)))
    assert vdev.shell("input tap 100 200")[0] == 0
    assert touches == [(100, 200, True), (100, 200, False)]


def test_input_injects_past_the_input_devices_so_getevent_sees_none_of_it(vdev: VirtualDevice) -> None:
    """`input` injects through InputManager.injectInputEvent (InputShellCommand), which InputDispatcher
    delivers without EventHub: no evdev event. A touch on the touchscreen itself is one."""
    events: list[tuple[str, str, str, object]] = []
    vdev.display.add_event_listener(events.append)
    assert vdev.shell("input tap 100 200; input swipe 100 200 300 400 50")[0] == 0
    assert events == []
    vdev.display.touch(100, 200, True)
    assert ("/dev/input/event1", "EV_KEY", "BTN_TOUCH", "DOWN") in events


def test_uiautomator_events_holds_the_slot_while_it_runs(vdev: VirtualDevice) -> None:
    holder = ShellClient(vdev, "uiautomator events")
    assert wait_until(lambda: vdev.automation.holder() is not None)
    pid, label = vdev.automation.holder()  # type: ignore[misc]
    assert label == "uiautomator"
    status, ps, _ = vdev.shell("ps -A -o PID,ARGS")
    assert f"{pid:>5} uiautomator\n".encode() in ps
    assert not vdev.automation.acquire(99999, "another")
    status, out, err = vdev.shell("uiautomator events")
    assert status == 137
    first = err.decode().splitlines()[0]
    assert first.startswith(
        "java.lang.IllegalStateException: UiAutomationService "
        "android.accessibilityservice.IAccessibilityServiceClient$Stub$Proxy@"
    )
    assert first.endswith("already registered!")
    holder.close()
    assert wait_until(lambda: vdev.automation.holder() is None, 1.0)
    assert vdev.automation.acquire(412, "next") and vdev.automation.holder() == (412, "next")
