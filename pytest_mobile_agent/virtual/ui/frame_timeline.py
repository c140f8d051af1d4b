"""The frames the apps draw, as the UI model makes them: every change to an app's window (a screen
composed, a scroll step, a toggle, an animation frame) is one frame of that app, on the next vsync
of the 60 Hz display, reported to the renderer's accounting (android/hwui.py), which `dumpsys
gfxinfo` and `dumpsys meminfo` print and which charges the app's process its CPU time.

What a frame costs is modelled on what the UI thread and the render thread do (AOSP
frameworks/base, libs/hwui/FrameInfo.h's stages): the UI thread's input, animation, measure,
layout and draw grow with the nodes of the window (UI_BASE_MS plus UI_PER_NODE_MS each), plus what
the screen itself adds (ui/draw_costs.py: the Feed screen decodes and blurs its photos while
scrolling); the render thread's sync and issue grow with them too (RENDER_*). A frame over the
16.67 ms interval is janky, as JankTracker counts it. The system's windows (the status bar, the
launcher) draw in their own processes' renderers.
"""

from __future__ import annotations

import itertools
import math
from typing import TYPE_CHECKING

from pytest_mobile_agent.virtual.android.activity import ActivityManager
from pytest_mobile_agent.virtual.android.hwui import FRAME_INTERVAL_NS, FrameWork, GraphicsStats
from pytest_mobile_agent.virtual.ui.changes import Change, NodesChanged, WindowsChanged
from pytest_mobile_agent.virtual.ui.node import Window

if TYPE_CHECKING:
    from pytest_mobile_agent.virtual.ui.model import UiModel

UI_BASE_MS = 1.6
UI_PER_NODE_MS = 0.004
RENDER_BASE_MS = 1.2
RENDER_PER_NODE_MS = 0.002
START_CPU_MS = 95.0
"""The main thread's work of a start (bindApplication, the activity's onCreate to onResume), charged."""
SURFACE_BUFFERS = 3  # BLASTBufferQueue's triple buffering: three RGBA buffers per window


class FrameTimeline:
    """A listener on the UI model: a frame per change of an app's window."""

    def __init__(self, model: UiModel, graphics: GraphicsStats) -> None:
        self.model = model
        self.graphics = graphics
        self._vsync_ids = itertools.count(4_000)
        self._last_vsync: dict[int, int] = {}  # window id -> its last frame's intended vsync (ns)
        self._counted: tuple[tuple[int, int], int] = ((-1, -1), 0)  # (window id, version) -> its nodes
        model.add_listener(self._changed)

    def _changed(self, change: Change) -> None:
        if isinstance(change, NodesChanged):
            window = self.model.window(change.window)
            windows = [window] if window is not None else []
        elif isinstance(change, WindowsChanged):
            # the windows as they are now, no timer run from inside a change's notice
            shown = self.model.stacked_windows()
            windows = [w for w in shown if w.id in change.windows and w.id not in self._last_vsync]
        else:
            return
        for window in windows:
            if window.package and window.type == "application" and window is not self.model.launcher:
                self._frame(window)

    def _nodes_of(self, window: Window) -> int:
        """The window's nodes, counted again only when its tree changed (Window.version)."""
        key = (window.id, window.version)
        if self._counted[0] != key:
            self._counted = (key, sum(1 for _ in window.root.walk()))
        return self._counted[1]

    def _frame(self, window: Window) -> None:
        nodes = self._nodes_of(window)
        now_ns = int(self.model.clock.now_ms() * 1_000_000)
        vsync = math.ceil(now_ns / FRAME_INTERVAL_NS) * FRAME_INTERVAL_NS
        last = self._last_vsync.get(window.id)
        first = last is None
        if last is not None and vsync <= last:
            vsync = last + FRAME_INTERVAL_NS
        self._last_vsync[window.id] = vsync
        ui_ms = UI_BASE_MS + nodes * UI_PER_NODE_MS + self.model.draw_costs.extra_ms(window)
        render_ms = RENDER_BASE_MS + nodes * RENDER_PER_NODE_MS
        package = window.package or ""
        left, top, right, bottom = window.bounds
        surface_kb = (right - left) * (bottom - top) * 4 * SURFACE_BUFFERS // 1024
        self.graphics.hold(package, views=nodes, surface_kb=surface_kb,
                           bitmap_kb=self.model.draw_costs.bitmaps.get(package, 0))
        self.graphics.report(package, FrameWork(vsync, ui_ms, render_ms, next(self._vsync_ids), first=first))


def attach_frames(model: UiModel, graphics: GraphicsStats, activity: ActivityManager) -> FrameTimeline:
    """Count the model's app frames into the renderer's accounting; each frame's UI and render
    thread time is the app's process's CPU time, and a process's death takes its counters along
    (the renderer lives in the process). A new process draws in new windows, whose first frames
    carry the WindowVisibilityChanged flag again."""

    def charge(package: str, ms: float) -> None:
        process = activity.process_of(package)
        if process is not None:
            process.cpu_ms += ms

    def on_activity(event: str, what: str) -> None:
        if event == "stop":
            graphics.drop(what)
        elif event == "start":
            charge(what.split("/", 1)[0], START_CPU_MS)

    graphics.on_frame.append(charge)
    activity.add_listener(on_activity)
    timeline = FrameTimeline(model, graphics)
    return timeline
