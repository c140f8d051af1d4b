"""A small display for the controller double's tests, shaped as the device model's display.

`size`, `density`, `render()` (full-resolution RGB, top row first), `touch(x, y, pressed)`, a
change counter `changes` and its `condition`. `tick()` changes the status bar's clock; a touch
that lifts paints a mark where it landed, below the status bar.
"""

from __future__ import annotations

import threading

from PIL import Image, ImageDraw

STATUS_BAR = 84  # rows, as the virtual device's geometry has it


class FakeDisplay:
    def __init__(self, width: int = 1080, height: int = 2400, density: int = 420) -> None:
        self.size = (width, height)
        self.density = density
        self.changes = 0
        self.condition = threading.Condition()
        self.clock = 0
        self.marks: list[tuple[int, int]] = []
        self.touch_log: list[tuple[int, int, bool]] = []
        self.renders = 0

    def _changed(self) -> None:
        with self.condition:
            self.changes += 1
            self.condition.notify_all()

    def tick(self) -> None:
        """The status bar clock moves on."""
        self.clock += 1
        self._changed()

    def touch(self, x: int, y: int, pressed: bool) -> None:
        self.touch_log.append((x, y, pressed))
        if not pressed and y >= STATUS_BAR:
            self.marks.append((x, y))
            self._changed()

    def render(self) -> Image.Image:
        self.renders += 1
        width, height = self.size
        image = Image.new("RGB", (width, height), (250, 250, 250))
        draw = ImageDraw.Draw(image)
        draw.rectangle((0, 0, width - 1, STATUS_BAR - 1), fill=(30, 30, 60))  # the status bar
        shade = (self.clock * 37) % 200 + 40
        draw.rectangle((40, 20, 200, 60), fill=(shade, shade, shade))  # its clock
        draw.rectangle((0, height - 40, width - 1, height - 1), fill=(200, 0, 0))  # a red bottom edge
        for x, y in self.marks:
            draw.rectangle((x - 20, y - 20, x + 20, y + 20), fill=(0, 120, 255))
        return image
