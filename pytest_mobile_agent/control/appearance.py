"""Dark mode and the font scale.

Dark mode is UiModeManager's night mode: `cmd uimode night yes|no` (UiModeManagerService.Shell,
Android 10+), which answers with the mode now (`Night mode: yes`). The font scale is the system
setting `font_scale` (Settings.System.FONT_SCALE), read back with `settings get`. Both are put back
at the end of the test (a font scale that was never set is deleted again). Either change redraws the
screen, so the screen's replica is marked stale and its next query reads afresh.
"""

from __future__ import annotations

import math

from pytest_mobile_agent.control import shell
from pytest_mobile_agent.control.journal import Journal
from pytest_mobile_agent.control.means import Paths
from pytest_mobile_agent.errors import InvalidArgument, StateRefused

FONT_SCALE_RANGE = (0.5, 2.0)  # Android 14's largest is 2.0; 0.85 is the smallest Settings offers


class Appearance:
    def __init__(self, paths: Paths, journal: Journal) -> None:
        self.paths = paths
        self.journal = journal

    def night_mode(self) -> str:
        """`yes`, `no`, `auto` or `custom`, as `cmd uimode night` says."""
        return shell.text(self.paths.device, "cmd uimode night").strip().removeprefix("Night mode: ")

    def set_dark_mode(self, on: bool) -> None:
        if not isinstance(on, bool):
            raise InvalidArgument(f"on must be True or False, not {on!r}")
        device = self.paths.device
        if not self.journal.knows("dark mode"):
            before = self.night_mode()
            self.journal.remember("dark mode", lambda: shell.run(device, f"cmd uimode night {before}",
                                                                 what="restoring the night mode"))
        wanted = "yes" if on else "no"
        said = shell.run(device, f"cmd uimode night {wanted}", what=f"turning dark mode {'on' if on else 'off'}")
        if said.strip() != f"Night mode: {wanted}":
            raise StateRefused(f"turning dark mode {'on' if on else 'off'}: the device answered {said.strip()!r}")
        self.paths.screen_changed()  # the app redraws in the other theme: the next query reads afresh

    def font_scale(self) -> float:
        value = shell.text(self.paths.device, "settings get system font_scale").strip()
        try:
            return float(value)
        except ValueError:
            return 1.0  # never set: the default

    def set_font_scale(self, scale: float) -> None:
        low, high = FONT_SCALE_RANGE
        if isinstance(scale, bool) or not isinstance(scale, (int, float)) or not math.isfinite(scale) \
                or not low <= scale <= high:
            raise InvalidArgument(f"scale must be a number from {low:g} to {high:g}, not {scale!r}")
        device = self.paths.device
        if not self.journal.knows("font scale"):
            before = shell.text(device, "settings get system font_scale").strip()
            undo = "settings delete system font_scale" if before in ("", "null") else \
                f"settings put system font_scale {before}"
            self.journal.remember("font scale", lambda: shell.run(device, undo, what="restoring the font scale"))
        shell.run(device, f"settings put system font_scale {float(scale):g}", what="setting the font scale")
        if abs(self.font_scale() - scale) > 1e-6:
            raise StateRefused(f"setting the font scale to {scale:g}: the device reports {self.font_scale():g}")
        self.paths.screen_changed()  # the text is laid out again: the next query reads afresh
