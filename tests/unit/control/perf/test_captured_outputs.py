"""The parsers read the captured real outputs of `dumpsys gfxinfo`, `dumpsys meminfo` and `am start
-W` (captured/, each file naming its public source and release) as the device meant them."""

from __future__ import annotations

import pytest

from pytest_mobile_agent import errors
from pytest_mobile_agent.control.perf.gfxinfo import frame_times, parse_gfxinfo
from pytest_mobile_agent.control.perf.launch import parse_am_start
from pytest_mobile_agent.control.perf.meminfo import parse_meminfo
from tests.unit.control.perf.captured_outputs import Captured, captured


@pytest.mark.parametrize("capture", captured("gfxinfo"), ids=lambda c: c.name)
def test_gfxinfo_summary_as_the_device_counted_it(capture: Captured) -> None:
    stats = parse_gfxinfo(capture.printed, "dumpsys gfxinfo")
    expect = capture.expect
    assert stats.total == int(expect["total"]) and stats.janky == int(expect["janky"])
    assert stats.janky_percent == float(expect["percent"])
    assert stats.percentiles == {50: int(expect["p50"]), 90: int(expect["p90"]), 95: int(expect["p95"]),
                                 99: int(expect["p99"])}
    assert stats.metrics()["gfxFrameJankPercent"] == float(expect["percent"])
    assert stats.metrics()["gfxFrameTime90thPercentileMs"] == float(expect["p90"])


@pytest.mark.parametrize("capture", captured("gfxinfo"), ids=lambda c: c.name)
def test_the_histogram_gives_the_percentiles_the_device_printed(capture: Captured) -> None:
    """ProfileData::findPercentile over the printed histogram agrees with the printed percentiles
    (so a step's percentiles, computed from two histograms' difference, are the device's own)."""
    from pytest_mobile_agent.control.perf.gfxinfo import percentiles_of

    stats = parse_gfxinfo(capture.printed, "dumpsys gfxinfo")
    assert percentiles_of(stats.histogram, stats.total) == stats.percentiles


@pytest.mark.parametrize("capture", captured("gfxinfo"), ids=lambda c: c.name)
def test_framestats_rows_or_not_supported(capture: Captured) -> None:
    if capture.expect["frames"] == "none":
        with pytest.raises(errors.NotSupported) as raised:
            parse_gfxinfo(capture.printed, "dumpsys gfxinfo com.android.chrome framestats", framestats=True)
        assert "dumpsys gfxinfo com.android.chrome framestats" in str(raised.value)
        assert "Total frames rendered: 43" in str(raised.value)  # what it printed instead
        return
    times = frame_times(capture.printed, "dumpsys gfxinfo framestats")
    assert len(times) == int(capture.expect["frames"])
    assert times[0] == pytest.approx((420896558171 - 420886623488) / 1e6)  # FrameCompleted - IntendedVsync


@pytest.mark.parametrize("capture", captured("meminfo"), ids=lambda c: c.name)
def test_meminfo_app_summary(capture: Captured) -> None:
    memory = parse_meminfo(capture.printed, "dumpsys meminfo")
    expect = capture.expect
    assert memory.total_pss_kb == int(expect["pss"]) and memory.total_rss_kb == int(expect["rss"])
    assert memory.total_swap_pss_kb == int(expect["swap"])
    parts = {name: int(value) for name, value in expect.items() if name[0].isupper()}
    assert memory.parts == parts  # the Rss column and Unknown's Rss-only figure are not taken for PSS
    assert memory.pss_mb == round(int(expect["pss"]) / 1024, 1)


@pytest.mark.parametrize("capture", captured("am_start"), ids=lambda c: c.name)
def test_am_start_timing(capture: Captured) -> None:
    launch = parse_am_start(capture.printed)
    expect = capture.expect
    assert launch.status == expect["status"] and launch.state == expect["state"]
    assert launch.activity == expect["activity"]
    assert launch.wait_ms == int(expect["wait"])
    if expect["total"] == "none":
        assert not launch.timed and launch.total_ms is None
        assert "timed out" in (launch.why_untimed or "")
    else:
        assert launch.timed and launch.total_ms == int(expect["total"]) and launch.why_untimed is None


def test_every_capture_names_its_public_source() -> None:
    for capture in captured("gfxinfo") + captured("meminfo") + captured("am_start"):
        assert capture.source.startswith("https://github.com/"), capture.name
