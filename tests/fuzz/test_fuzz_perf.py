"""The perf parsers (control/perf/) on any text a device or a broken pipe can give: they end, raise
nothing but the package's own errors, and never answer a zero for what was not measured; and on
well-formed dumps generated from random counters they read back exactly what was printed."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from pytest_mobile_agent import errors
from pytest_mobile_agent.control.perf.gfxinfo import FrameStats, parse_gfxinfo, percentiles_of
from pytest_mobile_agent.control.perf.launch import parse_am_start
from pytest_mobile_agent.control.perf.meminfo import parse_meminfo
from pytest_mobile_agent.control.perf.procstat import cpu_ms
from pytest_mobile_agent.virtual.android.hwui import BUCKET_MS, PackageGraphics
from pytest_mobile_agent.virtual.programs.perfdumps import frame_block, profile_data
from tests.fuzz.bounds import only_our_errors

LINES = st.sampled_from([
    "** Graphics info for pid 1 [a.b] **", "Total frames rendered: 3", "Janky frames: 1 (33.33%)",
    "HISTOGRAM: 5ms=2 17ms=1", "50th percentile: 5ms", "---PROFILEDATA---", "Flags,IntendedVsync,FrameCompleted,",
    "0,10,20,", "App Summary", "           TOTAL PSS:   100", "Java Heap:   5", "Status: ok",
    "LaunchState: COLD", "TotalTime: 12", "WaitTime: x", "No process found for: a.b", "",
])
TEXT = st.one_of(st.text(max_size=400), st.lists(st.one_of(LINES, st.text(max_size=40)), max_size=30).map("\n".join))


@given(TEXT)
def test_any_text_ends_in_a_reading_or_our_error(text: str) -> None:
    with only_our_errors():
        stats = parse_gfxinfo(text, "dumpsys gfxinfo a.b", framestats=True)
        assert "Total frames rendered" in text and "HISTOGRAM:" in text and stats.total >= 0
    with only_our_errors():
        memory = parse_meminfo(text, "dumpsys meminfo a.b")
        assert "App Summary" in text and memory.total_pss_kb >= 0
    launch = parse_am_start(text)  # never raises: no timing block is a start am did not time
    assert launch.timed == (launch.total_ms is not None) and (launch.total_ms or 0) >= 0
    assert launch.status != "none" or (launch.why_untimed or "").startswith("am start printed no timing block")
    with only_our_errors():
        assert cpu_ms(text, "/proc/1/stat") >= 0


@given(st.lists(st.integers(0, 40), min_size=len(BUCKET_MS), max_size=len(BUCKET_MS)), st.integers(0, 40),
       st.lists(st.tuples(st.booleans(), st.integers(1, 10**12), st.integers(1, 10**9)), max_size=20))
def test_a_printed_profile_reads_back_as_printed(histogram: list[int], janky: int,
                                                 rows: list[tuple[bool, int, int]]) -> None:
    """profile_data/frame_block print what hwui's ProfileData and JankTracker print; the parser
    reads back the counts, the percentiles (as findPercentile gives them) and each frame's time."""
    graphics = PackageGraphics(1, total=sum(histogram), janky=min(janky, sum(histogram)), histogram=histogram)
    for first, start, duration in rows:
        frame = [0] * 23
        frame[0], frame[2], frame[13], frame[16] = int(first), start, start + 1, start + duration
        graphics.frames.append(tuple(frame))
    printed = "** Graphics info for pid 7 [a.b] **\n" + profile_data(graphics) + frame_block(graphics)
    stats = parse_gfxinfo(printed, "dumpsys gfxinfo a.b framestats", framestats=True)
    assert stats.total == graphics.total and stats.janky == graphics.janky
    assert stats.percentiles == {p: graphics.percentile(p) for p in (50, 90, 95, 99)}
    assert stats.frames_ms == tuple(duration / 1e6 for first, _, duration in rows if not first)


@given(st.lists(st.integers(0, 30), min_size=8, max_size=8), st.lists(st.integers(0, 30), min_size=8, max_size=8))
def test_a_span_is_the_difference_of_two_readings(before: list[int], added: list[int]) -> None:
    buckets = (5, 6, 7, 16, 17, 40, 150, 200)
    earlier_histogram = tuple(zip(buckets, before, strict=True))
    later_histogram = tuple((ms, a + b) for (ms, a), b in zip(earlier_histogram, added, strict=True))
    earlier = FrameStats(sum(before), 0, percentiles_of(earlier_histogram, sum(before)), earlier_histogram)
    later = FrameStats(sum(before) + sum(added), 0, percentiles_of(later_histogram, sum(before) + sum(added)),
                       later_histogram)
    span = later.minus(earlier)
    assert span.total == sum(added)
    assert span.percentiles == percentiles_of(tuple(zip(buckets, added, strict=True)), sum(added))


def test_no_framestats_is_not_supported_never_zero() -> None:
    printed = ("** Graphics info for pid 7 [a.b] **\nTotal frames rendered: 0\nJanky frames: 0 (0.00%)\n"
               "HISTOGRAM: 5ms=0\n")
    try:
        parse_gfxinfo(printed, "dumpsys gfxinfo a.b framestats", framestats=True)
    except errors.NotSupported as exc:
        assert "dumpsys gfxinfo a.b framestats" in str(exc) and "Total frames rendered: 0" in str(exc)
    else:
        raise AssertionError("a dump without PROFILEDATA gave frames")
