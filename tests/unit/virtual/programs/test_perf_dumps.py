"""`dumpsys gfxinfo PKG [framestats|reset]`, `dumpsys meminfo PKG` and the app's /proc/PID/stat on
the virtual device: printed as AOSP prints them (the driver's own parsers read them back), from the
UI model's real frames: the Feed screen's scroll frames are janky, the List's are not."""

from __future__ import annotations

import time

from pytest_mobile_agent import errors
from pytest_mobile_agent.control.perf.gfxinfo import parse_gfxinfo
from pytest_mobile_agent.control.perf.meminfo import parse_meminfo
from pytest_mobile_agent.control.perf.procstat import cpu_ms
from pytest_mobile_agent.virtual.device import VirtualDevice
from pytest_mobile_agent.virtual.ui.feed import PHOTO_KB
from tests.support.virtual_shell import run_shell as run

PACKAGE = "dev.mobileagent.fixture"


def _open(vdev: VirtualDevice, tab: str) -> None:
    assert run(vdev, f"am start -W -S -n {PACKAGE}/.MainActivity --es tab {tab}")[0] == 0
    assert vdev.ui.wait_composed(5.0)


def _scroll(vdev: VirtualDevice, res: str, steps: int = 12) -> None:
    """A drag up the screen, one move per 16 ms (the touchscreen's reports between vsyncs)."""
    node = next(n for w in vdev.ui.windows() if (n := w.by_res(res)) is not None)
    x = (node.bounds[0] + node.bounds[2]) // 2
    vdev.ui.touch(x, 1900, True)
    for i in range(1, steps + 1):
        time.sleep(0.016)
        vdev.ui.touch(x, 1900 - i * 80, True)
    vdev.ui.touch(x, 1900 - steps * 80, False)


def _gfxinfo(vdev: VirtualDevice, *extra: str) -> str:
    status, out, _ = run(vdev, " ".join(["dumpsys gfxinfo", PACKAGE, *extra]))
    assert status == 0
    return out


def test_the_feed_drops_frames_when_scrolled_and_the_list_does_not(vdev: VirtualDevice) -> None:
    _open(vdev, "Feed")
    _gfxinfo(vdev, "reset")
    _scroll(vdev, "feed")
    feed = parse_gfxinfo(_gfxinfo(vdev), "dumpsys gfxinfo")
    assert feed.total >= 10 and feed.janky_percent > 50 and feed.percentiles[50] > 16
    _open(vdev, "List")
    _gfxinfo(vdev, "reset")
    _scroll(vdev, "list")
    smooth = parse_gfxinfo(_gfxinfo(vdev), "dumpsys gfxinfo")
    assert smooth.total >= 10 and smooth.janky == 0 and smooth.percentiles[99] <= 16


def test_reset_starts_a_new_span_and_framestats_prints_each_frame(vdev: VirtualDevice) -> None:
    _open(vdev, "List")
    before = parse_gfxinfo(_gfxinfo(vdev), "dumpsys gfxinfo")
    assert before.total >= 1  # the screen's composition was drawn
    after_reset = _gfxinfo(vdev, "reset")
    assert "Total frames rendered: 0" in after_reset
    _scroll(vdev, "list", steps=5)
    out = _gfxinfo(vdev, "framestats")
    stats = parse_gfxinfo(out, "dumpsys gfxinfo framestats", framestats=True)
    assert stats.total >= 5 and len(stats.frames_ms) == stats.total  # a frame per move (and fling step)
    header = out.split("---PROFILEDATA---")[1].strip().splitlines()[0]
    assert header.startswith("Flags,FrameTimelineVsyncId,IntendedVsync,Vsync,") and header.endswith(
        "DisplayPresentTime,CommandSubmissionCompleted,")


def test_meminfo_counts_the_views_and_the_photos_the_app_holds(vdev: VirtualDevice) -> None:
    _open(vdev, "Feed")
    first = parse_meminfo(run(vdev, f"dumpsys meminfo {PACKAGE}")[1], "dumpsys meminfo")
    _scroll(vdev, "feed")
    later = parse_meminfo(run(vdev, f"dumpsys meminfo {PACKAGE}")[1], "dumpsys meminfo")
    assert later.parts["Native Heap"] - first.parts["Native Heap"] >= PHOTO_KB  # newly decoded photos
    assert later.total_pss_kb > first.total_pss_kb and set(later.parts) == {
        "Java Heap", "Native Heap", "Code", "Stack", "Graphics", "Private Other", "System"}
    assert later.parts["Graphics"] == 1080 * 2400 * 4 * 3 // 1024  # a full-screen window's three buffers


def test_the_app_is_charged_the_cpu_its_frames_took(vdev: VirtualDevice) -> None:
    _open(vdev, "Feed")
    pid = run(vdev, f"pidof {PACKAGE}")[1].strip()
    path = f"/proc/{pid}/stat"
    started = cpu_ms(run(vdev, f"cat {path}")[1], path)
    _scroll(vdev, "feed")
    assert cpu_ms(run(vdev, f"cat {path}")[1], path) - started >= 12 * 20  # a dozen frames of 20+ ms


def test_an_app_without_a_process_is_named_not_zeroed(vdev: VirtualDevice) -> None:
    run(vdev, f"am force-stop {PACKAGE}")
    for command in (f"dumpsys gfxinfo {PACKAGE}", f"dumpsys meminfo {PACKAGE}"):
        status, out, _ = run(vdev, command)
        assert status == 0 and out.strip().endswith(f"No process found for: {PACKAGE}")
    try:
        parse_gfxinfo(run(vdev, f"dumpsys gfxinfo {PACKAGE}")[1], f"dumpsys gfxinfo {PACKAGE}")
    except errors.MobileAgentError as exc:
        assert "not running" in str(exc) and PACKAGE in str(exc)
    else:
        raise AssertionError("a stopped app's frames were read")


def test_leaving_the_feed_frees_its_photos_and_its_cost(vdev: VirtualDevice) -> None:
    _open(vdev, "Feed")
    _scroll(vdev, "feed")
    assert vdev.ui.draw_costs.costs and vdev.ui.draw_costs.bitmaps[PACKAGE] > 0
    _open(vdev, "List")  # a new process: the Feed's window is gone
    _scroll(vdev, "list", steps=3)
    assert vdev.ui.draw_costs.costs == [] and PACKAGE not in vdev.ui.draw_costs.bitmaps
