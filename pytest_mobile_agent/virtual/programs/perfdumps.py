"""`dumpsys gfxinfo PKG [framestats | reset]` and `dumpsys meminfo PKG`, printed as an Android 13-16
device prints them, from the app's renderer counters (android/hwui.py, fed by the UI model's real
frames) and its process in the process table.

* gfxinfo: GfxInfo's dump in the app's process (AOSP frameworks/base, core/java/android/view/
  ThreadedRenderer.java `dumpGfxInfo` -> libs/hwui/renderthread/RenderProxy / CanvasContext):
  the `Applications Graphics Acceleration Info:` header and uptimes (ActivityManagerService's
  GraphicsBinder), `** Graphics info for pid N [PKG] **`, ProfileData::dump (libs/hwui/
  ProfileData.cpp: the counters, the four percentiles, the jank reasons, HISTOGRAM, the GPU
  percentiles and histogram), then `Profile data in ms:` with each window's line and, under
  `framestats`, JankTracker::dumpFrames's `---PROFILEDATA---` block (libs/hwui/JankTracker.cpp;
  FrameInfo.cpp's 23 column names). `reset` clears the counters (JankTracker::reset) and prints
  the summary of the new, empty span. An app without a process prints `No process found for: PKG`.
* meminfo: ActivityThread.dumpMemInfoTable's layout (core/java/android/app/ActivityThread.java,
  `printRow` with its column formats): the heap table with Pss Total, Private Dirty, Private Clean,
  SwapPss Dirty, Rss Total and the heap columns, the App Summary (Java Heap, Native Heap, Code,
  Stack, Graphics, Private Other, System; Pss(KB) and Rss(KB)) and `TOTAL PSS: / TOTAL RSS: / TOTAL
  SWAP PSS:`, then the Objects counts. The figures: the Java heap grows with the views the app's
  windows hold, the native heap with its decoded bitmaps, Graphics is its window surfaces' buffers
  (three per window, RGBA), and the process's own RSS (the process table's figure) is its shared part.
"""

from __future__ import annotations

import time

from pytest_mobile_agent.virtual.android.framework import Framework
from pytest_mobile_agent.virtual.android.hwui import (
    BUCKET_MS,
    FRAME_INFO_NAMES,
    GPU_BUCKET_MS,
    JANK_TYPES,
    PackageGraphics,
)
from pytest_mobile_agent.virtual.kernel import process as pm


def _header(framework: Framework, title: str) -> str:
    uptime = int((time.monotonic() - framework.booted) * 1000)
    return f"{title}\nUptime: {uptime} Realtime: {uptime}\n\n"


def _running(framework: Framework, proc: pm.Process, package: str) -> int | None:
    pid = framework.activity.pid_of(package)
    if pid is None:
        proc.stdout.write(f"No process found for: {package}\n")
    return pid


def dumpsys_gfxinfo(framework: Framework, proc: pm.Process, args: list[str]) -> int:
    package = next((a for a in args if not a.startswith("-") and a not in ("framestats", "reset")), None)
    out = _header(framework, "Applications Graphics Acceleration Info:")
    if package is None:
        proc.stdout.write(out)
        return 0
    pid = _running(framework, proc, package)
    if pid is None:
        return 0
    if "reset" in args:
        framework.graphics.reset(package)
    graphics = framework.graphics.snapshot(package)
    out += f"** Graphics info for pid {pid} [{package}] **\n\n" + profile_data(graphics) + "\n"
    window = f"{package}/{package}.MainActivity/android.view.ViewRootImpl@5d1a7c2"
    out += f"Profile data in ms:\n\n\t{window} (visibility=0)\n"
    if "framestats" in args:
        out += frame_block(graphics)
    out += (f"View hierarchy:\n\n  {window}\n  {graphics.views} views, {graphics.views * 0.62:.2f} kB of render "
            f"nodes\n\n\nTotal ViewRootImpl   : 1\nTotal attached Views : {graphics.views}\n"
            f"Total RenderNode     : {graphics.views * 0.62:.2f} kB (used) / 1024.00 kB (capacity)\n\n")
    proc.stdout.write(out)
    return 0


def profile_data(graphics: PackageGraphics) -> str:
    """ProfileData::dump."""
    total = graphics.total
    share = 0.0 if total == 0 else graphics.janky / total * 100.0
    lines = [f"Stats since: {graphics.stats_since_ns}ns", f"Total frames rendered: {total}",
             f"Janky frames: {graphics.janky} ({share:.2f}%)",
             f"Janky frames (legacy): {graphics.janky} ({share:.2f}%)"]
    lines += [f"{p}th percentile: {graphics.percentile(p)}ms" for p in (50, 90, 95, 99)]
    lines += [f"Number {name}: {count}" for name, count in zip(JANK_TYPES, graphics.jank_types, strict=True)]
    lines.append("HISTOGRAM: " + " ".join(f"{ms}ms={n}" for ms, n in zip(BUCKET_MS, graphics.histogram, strict=True)))
    lines += [f"{p}th gpu percentile: {graphics.gpu_percentile(p)}ms" for p in (50, 90, 95, 99)]
    lines.append("GPU HISTOGRAM: " + " ".join(f"{ms}ms={n}" for ms, n in
                                              zip(GPU_BUCKET_MS, graphics.gpu_histogram, strict=True)))
    return "\n".join(lines) + "\n"


def frame_block(graphics: PackageGraphics) -> str:
    """JankTracker::dumpFrames: the column names, then each recent frame's stamps, every line
    ending in a comma."""
    rows = "".join("\n" + "".join(f"{value}," for value in frame) for frame in graphics.frames if frame[13] != 0)
    return "\n\n---PROFILEDATA---\n" + "".join(f"{name}," for name in FRAME_INFO_NAMES) + rows + \
        "\n---PROFILEDATA---\n\n"


def _row(name: str, *cells: int | str) -> str:
    """ActivityThread.printRow's heap rows: the name right-aligned in 13, each cell in 8."""
    return f"{name:>13s}" + "".join(f" {cell!s:>8s}" for cell in cells)


def _summary(name: str, pss: int | str, rss: int | str = "") -> str:
    return f"{name:>21s} {pss!s:>8s} {'':>21s} {rss!s:>8s}".rstrip()


def dumpsys_meminfo(framework: Framework, proc: pm.Process, args: list[str]) -> int:
    package = next((a for a in args if not a.startswith("-")), None)
    if package is None:
        proc.stdout.write(_header(framework, "Applications Memory Usage (in Kilobytes):") +
                          "Total RAM: 2,015,024K (status normal)\n")
        return 0
    pid = _running(framework, proc, package)
    if pid is None:
        return 0
    process = framework.system.processes.get(pid)
    shared_kb = process.memory[1] if process is not None else 20_000
    held = framework.graphics.snapshot(package)
    java, native, gfx = 6_200 + held.views * 3, 11_800 + held.bitmap_kb, held.surface_kb
    rows = [  # name, pss, private dirty, private clean, rss, heap (size, alloc, free)
        ("Native Heap", native, native - 40, 0, native + 1_100, (native + 4_000, native, 4_000)),
        ("Dalvik Heap", java, java - 60, 0, java + 4_200, (java + 24_576, java, 24_576)),
        ("Dalvik Other", 1_700, 1_380, 0, 2_900, None), ("Stack", 980, 980, 0, 990, None),
        ("Gfx dev", gfx, gfx, 0, gfx, None), ("Other dev", 40, 0, 36, 330, None),
        (".so mmap", 2_100, 230, 170, 26_000, None), (".apk mmap", 900, 0, 440, 15_800, None),
        (".dex mmap", 1_400, 4, 1_100, 2_300, None), (".oat mmap", 300, 0, 80, 9_100, None),
        (".art mmap", 2_600, 2_100, 4, 18_000, None), ("Other mmap", 320, 8, 80, 1_900, None),
        ("Unknown", 600, 590, 0, 1_300, None),
    ]
    totals = [sum(r[i] for r in rows) for i in (1, 2, 3, 4)]  # type: ignore[misc]
    lines = [_row("", "Pss", "Private", "Private", "SwapPss", "Rss", "Heap", "Heap", "Heap"),
             _row("", "Total", "Dirty", "Clean", "Dirty", "Total", "Size", "Alloc", "Free"),
             _row("", *["------"] * 8)]
    for name, pss, dirty, clean, rss, heap in rows:
        lines.append(_row(name, pss, dirty, clean, 0, rss, *(heap or ())).rstrip())
    heap_totals = [rows[0][5][i] + rows[1][5][i] for i in range(3)]  # type: ignore[index]
    lines.append(_row("TOTAL", totals[0], totals[1], totals[2], 0, totals[3] + shared_kb, *heap_totals))
    private = {name: dirty + clean for name, _, dirty, clean, _, _ in rows}
    java_summary = private["Dalvik Heap"] + private[".art mmap"]
    code = sum(private[n] for n in (".so mmap", ".apk mmap", ".dex mmap", ".oat mmap"))
    other = totals[1] + totals[2] - java_summary - private["Native Heap"] - code - private["Stack"] - gfx
    pss_total = totals[0]
    lines += ["", " App Summary", _summary("", "Pss(KB)", "Rss(KB)"), _summary("", "------", "------"),
              _summary("Java Heap:", java_summary, java + 4_200 + 18_000),
              _summary("Native Heap:", private["Native Heap"], native + 1_100),
              _summary("Code:", code, 53_200), _summary("Stack:", private["Stack"], 990),
              _summary("Graphics:", gfx, gfx), _summary("Private Other:", other),
              _summary("System:", pss_total - totals[1] - totals[2]),
              _summary("Unknown:", "", 1_300 + shared_kb), " ",
              f"{'TOTAL PSS:':>21s} {pss_total:>8d} {'TOTAL RSS:':>21s} {totals[3] + shared_kb:>8d} "
              f"{'TOTAL SWAP PSS:':>21s} {0:>8d}", "",
              " Objects", f"{'Views:':>21s} {held.views:>8d} {'ViewRootImpl:':>21s} {1:>8d}",
              f"{'AppContexts:':>21s} {4:>8d} {'Activities:':>21s} {1:>8d}", ""]
    proc.stdout.write(_header(framework, "Applications Memory Usage (in Kilobytes):") +
                      f"** MEMINFO in pid {pid} [{package}] **\n" + "\n".join(lines) + "\n")
    return 0
