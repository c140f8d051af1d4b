"""`dumpsys gfxinfo PKG [framestats]`: the renderer's frame statistics of an app, read.

The summary is hwui's ProfileData::dump (AOSP frameworks/base, libs/hwui/ProfileData.cpp, as
JankTracker::dumpData prints it for the package; Android 12 to 16 print the `(legacy)` lines too):

    Stats since: <ns>ns
    Total frames rendered: <n>
    Janky frames: <n> (<p>%)
    50th percentile: <ms>ms ... 99th percentile: <ms>ms
    Number Missed Vsync: <n> ...
    HISTOGRAM: 5ms=<n> 6ms=<n> ... 4950ms=<n>

A frame is janky when it took longer than the display's frame interval (JankTracker::finishFrame);
the percentiles are the histogram's (ProfileData::findPercentile), so a step's own percentiles come
from the difference of two histograms (`FrameStats.minus`). With `framestats`, each window's recent
frames follow between `---PROFILEDATA---` lines (JankTracker::dumpFrames): a header naming the
FrameInfo columns (libs/hwui/FrameInfo.cpp, FrameInfoNames: Flags, FrameTimelineVsyncId,
IntendedVsync, Vsync, ..., FrameCompleted, ...) and one row of nanosecond stamps per frame, each
line ending in a comma. A device that prints no such block (an old release, or a vendor's build for
a non-debuggable app) measured nothing: `errors.NotSupported` naming the command and what it
printed, never a zero.

The names of the figures are Macrobenchmark's (androidx.benchmark.macro, FrameTimingGfxInfoMetric,
the metric read from this same dump): gfxFrameTotalCount, jankyFrameCount, gfxFrameJankPercent,
gfxFrameTime50thPercentileMs, ...90th, ...95th, ...99th.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pytest_mobile_agent import errors

PROFILEDATA = "---PROFILEDATA---"
PERCENTILES = (50, 90, 95, 99)
_PERCENTILE = re.compile(r"^(\d+)th percentile: (\d+)ms$")
_JANKY = re.compile(r"^Janky frames: (\d+) \(([\d.]+)%\)$")
_BUCKET = re.compile(r"(\d+)ms=(\d+)")


@dataclass(frozen=True)
class FrameStats:
    """The frames an app rendered in a span, as the renderer counted them."""

    total: int
    janky: int
    percentiles: dict[int, int]
    """{50: ms, 90: ms, 95: ms, 99: ms}: the frame time at or under which that share of frames took."""
    histogram: tuple[tuple[int, int], ...]
    """(bucket's ms, frames), in the order the dump prints them (ascending time)."""
    frames_ms: tuple[float, ...] = ()
    """With framestats: each recent frame's time, IntendedVsync to FrameCompleted (Flags 0 only)."""

    @property
    def janky_percent(self) -> float:
        return 0.0 if self.total == 0 else round(self.janky * 100.0 / self.total, 2)

    def metrics(self) -> dict[str, float]:
        """The figures under Macrobenchmark's names."""
        named = {"gfxFrameTotalCount": float(self.total), "jankyFrameCount": float(self.janky),
                 "gfxFrameJankPercent": self.janky_percent}
        for percentile in PERCENTILES:
            named[f"gfxFrameTime{percentile}thPercentileMs"] = float(self.percentiles.get(percentile, 0))
        return named

    def minus(self, earlier: FrameStats) -> FrameStats:
        """The frames rendered since `earlier` (the same app's counters, read before): the counts'
        difference, the percentiles of the histograms' difference. When the counters went back
        (a reset, the app restarted) the span is everything counted since."""
        if self.total < earlier.total or _bucket_keys(self) != _bucket_keys(earlier):
            return self
        counts = dict(earlier.histogram)
        histogram = tuple((ms, count - counts.get(ms, 0)) for ms, count in self.histogram)
        if any(count < 0 for _, count in histogram):
            return self
        total = self.total - earlier.total
        return FrameStats(total, max(0, self.janky - earlier.janky), percentiles_of(histogram, total), histogram)


def _bucket_keys(stats: FrameStats) -> tuple[int, ...]:
    return tuple(ms for ms, _ in stats.histogram)


def percentiles_of(histogram: tuple[tuple[int, int], ...], total: int) -> dict[int, int]:
    """ProfileData::findPercentile over a histogram: from the slowest bucket down, the first bucket
    where the frames at or above it reach the share above the percentile."""
    found = {}
    for percentile in PERCENTILES:
        remaining = total - percentile * total // 100
        found[percentile] = 0
        for ms, count in reversed(histogram):
            remaining -= count
            if remaining <= 0:
                found[percentile] = ms
                break
    return found


def parse_gfxinfo(printed: str, command: str, *, framestats: bool = False) -> FrameStats:
    """The app's summary (and with `framestats`, its frames) from what `command` printed.
    errors.MobileAgentError when the app has no process; errors.NotSupported when the renderer
    printed no statistics (or, with `framestats`, no frame block)."""
    lines = [line.strip() for line in printed.splitlines()]
    if not any(line.startswith("** Graphics info for pid") for line in lines):
        if any(line.startswith("No process found for") for line in lines):
            raise errors.MobileAgentError(f"{command}: the app is not running ({printed.strip()[:200]})",
                                          advice="Start it first (app.start()), then measure its frames")
        raise errors.NotSupported(f"{command} printed no graphics statistics: {printed.strip()[:400]!r}")
    total = _number_after(lines, "Total frames rendered: ")
    janky_line = next((_JANKY.match(line) for line in lines if _JANKY.match(line)), None)
    histogram_line = next((line for line in lines if line.startswith("HISTOGRAM:")), None)
    if total is None or janky_line is None or histogram_line is None:
        raise errors.NotSupported(f"{command} printed no frame summary (Total frames rendered, Janky frames, "
                                  f"HISTOGRAM): {printed.strip()[:400]!r}")
    histogram = tuple((int(ms), int(count)) for ms, count in _BUCKET.findall(histogram_line))
    percentiles = {int(m.group(1)): int(m.group(2)) for line in lines if (m := _PERCENTILE.match(line))}
    frames: tuple[float, ...] = ()
    if framestats:
        frames = frame_times(printed, command)
    return FrameStats(total, int(janky_line.group(1)), percentiles or percentiles_of(histogram, total),
                      histogram, frames)


def frame_times(printed: str, command: str) -> tuple[float, ...]:
    """Each frame's time in ms (FrameCompleted - IntendedVsync) from the PROFILEDATA blocks, frames
    whose Flags are 0 only (a non-zero flag marks a frame the platform expects to be slow: a window's
    first, a layout change). errors.NotSupported when the output has no such block."""
    blocks = printed.split(PROFILEDATA)
    if len(blocks) < 3:
        raise errors.NotSupported(f"{command} printed no {PROFILEDATA} block (this release or build gives no "
                                  f"per-frame data): {printed.strip()[:400]!r}",
                                  advice="Read the summary without framestats (perf.frames(per_frame=False))")
    times: list[float] = []
    for block in blocks[1::2]:
        rows = [row.strip().rstrip(",").split(",") for row in block.strip().splitlines() if row.strip()]
        if not rows:
            continue
        header = rows[0]
        try:
            flags, start, end = (header.index(name) for name in ("Flags", "IntendedVsync", "FrameCompleted"))
        except ValueError:
            raise errors.ProtocolError(f"{command}: a {PROFILEDATA} header without Flags, IntendedVsync and "
                                       f"FrameCompleted: {','.join(header)[:300]!r}") from None
        for row in rows[1:]:
            if len(row) != len(header) or not all(cell.lstrip("-").isdigit() for cell in row):
                continue
            if int(row[flags]) == 0 and int(row[end]) > int(row[start]) > 0:
                times.append((int(row[end]) - int(row[start])) / 1e6)
    return tuple(times)


def _number_after(lines: list[str], prefix: str) -> int | None:
    for line in lines:
        if line.startswith(prefix):
            value = line[len(prefix):].strip()
            return int(value) if value.isdigit() else None
    return None
