"""The renderer's frame accounting of the apps (hwui), for `dumpsys gfxinfo` and `dumpsys meminfo`.

The UI model reports each frame an app's window draws (virtual/ui/frame_timeline.py) with the time
its UI thread and render thread took; this room keeps, per package, what hwui keeps per process:

* the FrameInfo of the recent frames (JankTracker's ring of 120, AOSP frameworks/base
  libs/hwui/JankTracker.h; the columns of libs/hwui/FrameInfo.cpp's FrameInfoNames, Android 13+:
  23 of them, Flags first, GpuCompleted/DisplayPresentTime/CommandSubmissionCompleted last);
* the ProfileData counters (libs/hwui/ProfileData.cpp): total frames, janky frames (a frame whose
  IntendedVsync-to-FrameCompleted time is over the frame interval, JankTracker::finishFrame), the
  jank reasons, the 57 + 97 bucket histogram (5-32 ms by 1, 34-48 by 2, 53-133 by 4, 150-4950 by
  50) and the GPU histogram (1-25 ms, 4950);
* what its UI holds for its memory: views, the window surfaces' buffers, decoded bitmaps.

`reset(package)` is `dumpsys gfxinfo PKG reset` (JankTracker::reset); a process's death drops it all.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

FRAME_INFO_NAMES = (
    "Flags", "FrameTimelineVsyncId", "IntendedVsync", "Vsync", "InputEventId", "HandleInputStart",
    "AnimationStart", "PerformTraversalsStart", "DrawStart", "FrameDeadline", "FrameInterval",
    "FrameStartTime", "SyncQueued", "SyncStart", "IssueDrawCommandsStart", "SwapBuffers", "FrameCompleted",
    "DequeueBufferDuration", "QueueBufferDuration", "GpuCompleted", "SwapBuffersCompleted",
    "DisplayPresentTime", "CommandSubmissionCompleted",
)
FRAME_INTERVAL_NS = 16_666_666  # the emulator's 60 Hz display (DisplayInfo: fps=60.0)
RECENT_FRAMES = 120
JANK_TYPES = ("Missed Vsync", "High input latency", "Slow UI thread", "Slow bitmap uploads",
              "Slow issue draw commands", "Frame deadline missed", "Frame deadline missed (legacy)")
SLOW_BUCKETS = 97  # 150 ms to 4950 ms by 50
FRAME_BUCKETS = 57  # 5 ms to 133 ms


def frame_bucket_ms(index: int) -> int:
    """ProfileData::frameTimeForFrameCountIndex."""
    ms = index + 5
    if ms > 32:
        ms += ms - 32
    if ms > 48:
        ms += (ms - 48) + 1
    return ms


BUCKET_MS = tuple(frame_bucket_ms(i) for i in range(FRAME_BUCKETS)) + tuple(150 + 50 * i for i in range(SLOW_BUCKETS))
GPU_BUCKET_MS: tuple[int, ...] = (*range(1, 26), 4950)


def bucket_of(duration_ns: int) -> int:
    """The histogram bucket of a frame time (ProfileData::reportFrame: a frame in a bucket's range
    counts at the bucket at or below it)."""
    ms = duration_ns // 1_000_000
    if ms >= 150:
        return FRAME_BUCKETS + min(SLOW_BUCKETS - 1, (ms - 150) // 50)
    index = 0
    for i, bucket in enumerate(BUCKET_MS[:FRAME_BUCKETS]):
        if ms >= bucket:
            index = i
    return index


@dataclass(frozen=True)
class FrameWork:
    """What one frame cost: the UI thread's input, animation, traversal and draw (ms), the render
    thread's sync and draw-command issue (ms), and the frame's intended vsync (ns)."""

    intended_vsync_ns: int
    ui_ms: float
    render_ms: float
    vsync_id: int
    first: bool = False  # a window's first frame (FrameInfoFlags::WindowVisibilityChanged)


def frame_info(work: FrameWork) -> tuple[int, ...]:
    """The 23 FrameInfo stamps of a frame in FrameInfoIndex order (libs/hwui/FrameInfo.h), which puts
    FrameStartTime before FrameInterval while FrameInfoNames names them the other way round: a real
    device's framestats rows carry the start time under "FrameInterval" and the interval under
    "FrameStartTime" (as the captured rows in tests/unit/control/perf/captured/ show), and so do these."""
    start = work.intended_vsync_ns
    ui = int(work.ui_ms * 1_000_000)
    render = int(work.render_ms * 1_000_000)
    sync_start = start + ui
    issue = sync_start + render // 4
    swap = sync_start + render
    completed = swap + 400_000
    flags = 1 if work.first else 0
    return (flags, work.vsync_id, start, start, 0, start + 150_000, start + 300_000, start + 500_000,
            start + ui // 2, start + FRAME_INTERVAL_NS, start, FRAME_INTERVAL_NS, sync_start - 50_000, sync_start,
            issue, swap, completed, 180_000, 90_000, completed + 1_000_000, completed, completed + FRAME_INTERVAL_NS,
            swap)


@dataclass
class PackageGraphics:
    """One app's hwui counters and what its UI holds."""

    stats_since_ns: int
    frames: deque[tuple[int, ...]] = field(default_factory=lambda: deque(maxlen=RECENT_FRAMES))
    total: int = 0
    janky: int = 0
    jank_types: list[int] = field(default_factory=lambda: [0] * len(JANK_TYPES))
    histogram: list[int] = field(default_factory=lambda: [0] * len(BUCKET_MS))
    gpu_histogram: list[int] = field(default_factory=lambda: [0] * len(GPU_BUCKET_MS))
    views: int = 0
    surface_kb: int = 0
    bitmap_kb: int = 0

    def report(self, info: tuple[int, ...]) -> None:
        """JankTracker::finishFrame for one frame's stamps."""
        self.frames.append(info)
        start, vsync, sync_start = info[2], info[3], info[13]
        issue, completed = info[14], info[16]
        duration = completed - start
        self.total += 1
        self.histogram[bucket_of(duration)] += 1
        self.gpu_histogram[min(25, max(0, (info[19] - info[15]) // 1_000_000 - 1))] += 1
        if duration <= FRAME_INTERVAL_NS:
            return
        self.janky += 1
        self.jank_types[5] += 1
        self.jank_types[6] += 1
        if vsync - start >= 1:
            self.jank_types[0] += 1
        if sync_start - vsync >= FRAME_INTERVAL_NS // 2:
            self.jank_types[2] += 1
        if completed - issue >= FRAME_INTERVAL_NS * 3 // 4:
            self.jank_types[4] += 1

    def percentile(self, percentile: int) -> int:
        """ProfileData::findPercentile."""
        remaining = self.total - percentile * self.total // 100
        for index in range(len(BUCKET_MS) - 1, -1, -1):
            remaining -= self.histogram[index]
            if remaining <= 0:
                return BUCKET_MS[index]
        return 0

    def gpu_percentile(self, percentile: int) -> int:
        total = sum(self.gpu_histogram)
        remaining = total - percentile * total // 100
        for index in range(len(GPU_BUCKET_MS) - 1, -1, -1):
            remaining -= self.gpu_histogram[index]
            if remaining <= 0:
                return GPU_BUCKET_MS[index]
        return 0


class GraphicsStats:
    """Every app's PackageGraphics, by package (one lock: the UI model reports on its thread, dumpsys
    reads on the shell's)."""

    def __init__(self, clock_ns: Callable[[], int]) -> None:
        self._clock_ns = clock_ns
        self._lock = threading.Lock()
        self._packages: dict[str, PackageGraphics] = {}
        #: told of each frame's UI and render thread time (ms) by package: the app's CPU time
        self.on_frame: list[Callable[[str, float], None]] = []

    def _of(self, package: str) -> PackageGraphics:
        graphics = self._packages.get(package)
        if graphics is None:
            graphics = self._packages[package] = PackageGraphics(self._clock_ns())
        return graphics

    def report(self, package: str, work: FrameWork) -> None:
        with self._lock:
            self._of(package).report(frame_info(work))
        for listener in list(self.on_frame):
            listener(package, work.ui_ms + work.render_ms)

    def hold(self, package: str, *, views: int, surface_kb: int, bitmap_kb: int) -> None:
        """What the app's UI holds now (its windows' views and surfaces, its decoded bitmaps)."""
        with self._lock:
            graphics = self._of(package)
            graphics.views, graphics.surface_kb, graphics.bitmap_kb = views, surface_kb, bitmap_kb

    def snapshot(self, package: str) -> PackageGraphics:
        """A copy of the package's counters (zero when it drew nothing yet)."""
        with self._lock:
            graphics = self._of(package)
            return PackageGraphics(graphics.stats_since_ns, deque(graphics.frames, maxlen=RECENT_FRAMES),
                                   graphics.total, graphics.janky, list(graphics.jank_types),
                                   list(graphics.histogram), list(graphics.gpu_histogram), graphics.views,
                                   graphics.surface_kb, graphics.bitmap_kb)

    def reset(self, package: str) -> None:
        """JankTracker::reset: the frames and counters go, `Stats since` is now; the UI's holdings stay."""
        with self._lock:
            old = self._of(package)
            self._packages[package] = PackageGraphics(self._clock_ns(), views=old.views, surface_kb=old.surface_kb,
                                                      bitmap_kb=old.bitmap_kb)

    def drop(self, package: str) -> None:
        """The app's process died: its renderer and everything it counted go with it."""
        with self._lock:
            self._packages.pop(package, None)
