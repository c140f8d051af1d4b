"""The display and touchscreen of the virtual device.

A 1080x2400 panel at 420 dpi (`wm density` / `wm size` overrides are kept beside the physical
values, as the window manager keeps them). `render()` returns a full-resolution RGB PIL image, top
row first: the content provider's when the UI model set one (`display.content = provider`, an
object with `render(width, height) -> PIL.Image` and optionally `touch(x, y, pressed)`), else a
plain dark screen under a status bar with a clock.

`touch(x, y, pressed)` is the virtio multi-touch screen of the emulator, `/dev/input/event1`:
it publishes the evdev events `getevent -l` prints (protocol B: ABS_MT_SLOT on a new contact,
ABS_MT_TRACKING_ID, ABS_MT_POSITION_X/Y in display pixels, sent only when they change, as evdev
drops a value equal to the last one, ABS_MT_PRESSURE, BTN_TOUCH DOWN/UP, SYN_REPORT; a lift sends
ABS_MT_TRACKING_ID ffffffff) and forwards the touch to the content provider, stamped with the time it
arrived (the kernel's event time) and without waiting for the app (`touchscreen(x, y, pressed, t_ms)`
when the provider has it, returning an event set once the touch was handled).

`changed()` bumps the change counter frame streams wait on (`wait_change(seen, timeout)`); render
is cheap to call again when the counter has not moved.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from PIL import Image as PILImage

TOUCH_DEVICE = "/dev/input/event1"
TOUCH_NAME = "virtio_input_multi_touch_1"
KEYBOARD_DEVICE = "/dev/input/event0"
KEYBOARD_NAME = "qwerty2"
STATUS_BAR_DP = 24
BACKGROUND = (18, 18, 18)
STATUS_BAR = (32, 32, 36)

EventLine = tuple[str, str, str, int | str]  # device, type, code, value (int or label)


class Display:
    def __init__(self, width: int = 1080, height: int = 2400, density: int = 420) -> None:
        self.physical_width = width
        self.physical_height = height
        self.physical_density = density
        self.override_density: int | None = None
        self.override_size: tuple[int, int] | None = None
        self.rotation = 0
        #: auto-rotate off, the emulator's default: the display stays at the rotation it is frozen at
        self.rotation_frozen = True
        self.content: Any = None
        self.cond = threading.Condition()
        self.change_count = 0
        self._subscribers: list[queue.SimpleQueue[EventLine]] = []
        self._event_listeners: list[Callable[[EventLine], None]] = []
        self._sub_lock = threading.Lock()
        self._tracking_id = -1
        self._touching = False
        self._last_xy: tuple[int | None, int | None] = (None, None)
        self._touch_listeners: list[Callable[[int, int, bool], None]] = []
        self._touch_lock = threading.Lock()  # one report at a time, whoever touches
        #: the contacts other than contact 0 (`touch_contacts`): slot -> (tracking id, x, y)
        self._other_slots: dict[int, tuple[int, int | None, int | None]] = {}
        self._slot = 0  # the slot the last ABS_MT_SLOT selected

    # --- geometry -------------------------------------------------------------------------------------

    @property
    def width(self) -> int:
        return self.override_size[0] if self.override_size else self.physical_width

    @property
    def height(self) -> int:
        return self.override_size[1] if self.override_size else self.physical_height

    @property
    def density(self) -> int:
        """The density in effect: the override first, as `wm density` reports it."""
        return self.override_density or self.physical_density

    @property
    def size(self) -> tuple[int, int]:
        return self.width, self.height

    # --- frames ---------------------------------------------------------------------------------------

    def freeze_rotation(self, rotation: int) -> None:
        """IWindowManager.freezeRotation: lock the display in `rotation` (quarter turns)."""
        self.rotation_frozen = True
        self.rotation = rotation % 4
        self.changed()

    def thaw_rotation(self) -> None:
        """IWindowManager.thawRotation: auto-rotate on; the device lies in its natural orientation."""
        self.rotation_frozen = False
        self.rotation = 0
        self.changed()

    def changed(self) -> None:
        with self.cond:
            self.change_count += 1
            self.cond.notify_all()

    def wait_change(self, seen: int, timeout: float) -> int:
        """The change counter once it differs from `seen`, or as it is at the timeout."""
        deadline = time.monotonic() + timeout
        with self.cond:
            while self.change_count == seen:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    break
                self.cond.wait(remaining)
            return self.change_count

    def set_content(self, provider: Any) -> None:
        self.content = provider
        self.changed()

    def render(self) -> PILImage.Image:
        if self.content is not None:
            image: PILImage.Image = self.content.render(self.width, self.height)
            return image.convert("RGB") if image.mode != "RGB" else image
        return self._idle_screen()

    def status_bar_height(self) -> int:
        return round(STATUS_BAR_DP * self.density / 160)

    def _idle_screen(self) -> PILImage.Image:
        from PIL import Image, ImageDraw

        image = Image.new("RGB", (self.width, self.height), BACKGROUND)
        draw = ImageDraw.Draw(image)
        bar = self.status_bar_height()
        draw.rectangle((0, 0, self.width - 1, bar - 1), fill=STATUS_BAR)
        clock = time.strftime("%H:%M")
        draw.text((round(16 * self.density / 160), bar // 3), clock, fill=(230, 230, 230))
        return image

    # --- input ----------------------------------------------------------------------------------------

    def subscribe(self) -> queue.SimpleQueue[EventLine]:
        """A queue of the input events published from now on (getevent reads one)."""
        events: queue.SimpleQueue[EventLine] = queue.SimpleQueue()
        with self._sub_lock:
            self._subscribers.append(events)
        return events

    def unsubscribe(self, events: queue.SimpleQueue[EventLine]) -> None:
        with self._sub_lock:
            if events in self._subscribers:
                self._subscribers.remove(events)

    def add_event_listener(self, listener: Callable[[EventLine], None]) -> None:
        """listener(event) for every input event published from now on (getevent's reader)."""
        with self._sub_lock:
            self._event_listeners.append(listener)

    def remove_event_listener(self, listener: Callable[[EventLine], None]) -> None:
        with self._sub_lock:
            if listener in self._event_listeners:
                self._event_listeners.remove(listener)

    def add_touch_listener(self, listener: Callable[[int, int, bool], None]) -> None:
        self._touch_listeners.append(listener)

    def _publish(self, events: list[EventLine]) -> None:
        with self._sub_lock:
            subscribers = list(self._subscribers)
            listeners = list(self._event_listeners)
        for subscriber in subscribers:
            for event in events:
                subscriber.put(event)
        for listener in listeners:
            for event in events:
                listener(event)

    def touch(self, x: int, y: int, pressed: bool) -> threading.Event | None:
        """One touch report of contact 0 at (x, y) in display pixels; pressed False lifts it. The
        app gets it at the time it arrived here, however long the app takes to get to it; returns
        the event set once the app handled it (None: handled already, or nothing to handle)."""
        content = self.content
        arrived_at = content.now_ms() if hasattr(content, "touchscreen") else None
        with self._touch_lock:
            events = self._report(x, y, pressed)
        if events is None:
            return None
        self._publish(events)  # outside the lock: listeners take the device's lock
        if arrived_at is None:
            self._deliver(x, y, pressed)
            return None
        handled: threading.Event = content.touchscreen(x, y, pressed, arrived_at)
        self._tell_touch_listeners(x, y, pressed)
        return handled

    def touch_contacts(self, contacts: list[tuple[int, int, int, bool]]) -> threading.Event | None:
        """One input frame of several contacts, (identifier, x, y, pressed) each as it stands at the
        frame's end, the identifier its slot (the emulator's TouchEventSender maps up to 10 identifiers
        onto the virtio touchscreen's slots, protocol B). Publishes the frame's evdev events, one
        SYN_REPORT for all of them, and hands the frame to the content stamped with its arrival
        (`touchscreen_frame(contacts, t_ms)`), which makes MotionEvents of it as InputReader does
        (virtual/ui/pointers.FrameMapper). A content without frames gets contact 0 alone."""
        content = self.content
        if not hasattr(content, "touchscreen_frame"):
            single = [c for c in contacts if c[0] == 0]
            return self.touch(single[-1][1], single[-1][2], single[-1][3]) if single else None
        arrived_at = content.now_ms()
        with self._touch_lock:
            events = self._report_frame(contacts)
        if not events:
            return None
        self._publish(events)
        handled: threading.Event = content.touchscreen_frame(contacts, arrived_at)
        for _, x, y, pressed in contacts:
            self._tell_touch_listeners(x, y, pressed)
        return handled

    def _report_frame(self, contacts: list[tuple[int, int, int, bool]]) -> list[EventLine]:
        """The evdev events of one frame of several slots; a slot that changes nothing adds none."""
        final = {slot: (x, y, pressed) for slot, x, y, pressed in contacts}
        touching_before = self._touching or bool(self._other_slots)
        events: list[EventLine] = []
        for slot, (x, y, pressed) in sorted(final.items()):
            events += self._report_slot(slot, x, y, pressed)
        touching_after = self._touching or bool(self._other_slots)
        if not events:
            return []
        dev = TOUCH_DEVICE
        if touching_after and not touching_before:
            events.append((dev, "EV_KEY", "BTN_TOUCH", "DOWN"))
        elif touching_before and not touching_after:
            events.append((dev, "EV_KEY", "BTN_TOUCH", "UP"))
        events.append((dev, "EV_SYN", "SYN_REPORT", 0))
        return events

    def _report_slot(self, slot: int, x: int, y: int, pressed: bool) -> list[EventLine]:
        dev = TOUCH_DEVICE
        down = self._touching if slot == 0 else slot in self._other_slots
        if not pressed and not down:
            return []
        events: list[EventLine] = []
        if not down or self._slot != slot:
            events.append((dev, "EV_ABS", "ABS_MT_SLOT", slot))
            self._slot = slot
        if not pressed:
            events.append((dev, "EV_ABS", "ABS_MT_PRESSURE", 0))
            events.append((dev, "EV_ABS", "ABS_MT_TRACKING_ID", 0xFFFFFFFF))
            if slot == 0:
                self._touching = False
            else:
                del self._other_slots[slot]
            return events
        if not down:
            self._tracking_id = (self._tracking_id + 1) & 0xFFFF
            events.append((dev, "EV_ABS", "ABS_MT_TRACKING_ID", self._tracking_id))
        last_x, last_y = self._last_xy if slot == 0 else self._other_slots.get(slot, (0, None, None))[1:]
        if x != last_x:
            events.append((dev, "EV_ABS", "ABS_MT_POSITION_X", x))
        if y != last_y:
            events.append((dev, "EV_ABS", "ABS_MT_POSITION_Y", y))
        if not down:
            events.append((dev, "EV_ABS", "ABS_MT_PRESSURE", 0x400))
        if slot == 0:
            self._last_xy, self._touching = (x, y), True
        else:
            self._other_slots[slot] = (self._tracking_id, x, y)
        return events

    def inject(self, x: int, y: int, pressed: bool) -> None:
        """A touch injected through InputManager.injectInputEvent (`adb shell input`:
        InputShellCommand): InputDispatcher delivers it to the windows, and it never passes through
        the kernel's input devices, so getevent shows nothing of it."""
        self._deliver(x, y, pressed)

    def _deliver(self, x: int, y: int, pressed: bool) -> None:
        if self.content is not None and hasattr(self.content, "touch"):
            self.content.touch(x, y, pressed)
        self._tell_touch_listeners(x, y, pressed)

    def _tell_touch_listeners(self, x: int, y: int, pressed: bool) -> None:
        for listener in list(self._touch_listeners):
            listener(x, y, pressed)

    def _report(self, x: int, y: int, pressed: bool) -> list[EventLine] | None:
        events: list[EventLine] = []
        dev = TOUCH_DEVICE
        if pressed:
            if not self._touching:
                self._tracking_id = (self._tracking_id + 1) & 0xFFFF
                events.append((dev, "EV_ABS", "ABS_MT_SLOT", 0))
                events.append((dev, "EV_ABS", "ABS_MT_TRACKING_ID", self._tracking_id))
            last_x, last_y = self._last_xy
            if x != last_x:
                events.append((dev, "EV_ABS", "ABS_MT_POSITION_X", x))
            if y != last_y:
                events.append((dev, "EV_ABS", "ABS_MT_POSITION_Y", y))
            self._last_xy = (x, y)
            if not self._touching:
                events.append((dev, "EV_ABS", "ABS_MT_PRESSURE", 0x400))
                events.append((dev, "EV_KEY", "BTN_TOUCH", "DOWN"))
            self._touching = True
        else:
            if not self._touching:
                return None
            events.append((dev, "EV_ABS", "ABS_MT_PRESSURE", 0))
            events.append((dev, "EV_ABS", "ABS_MT_TRACKING_ID", 0xFFFFFFFF))
            events.append((dev, "EV_KEY", "BTN_TOUCH", "UP"))
            self._touching = False
        events.append((dev, "EV_SYN", "SYN_REPORT", 0))
        return events
