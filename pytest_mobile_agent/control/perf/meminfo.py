"""`dumpsys meminfo PKG`: the app's memory, from the App Summary ActivityThread prints.

AOSP frameworks/base, core/java/android/app/ActivityThread.java, `dumpMemInfoTable` (Android 10
to 16): after the per-heap table, an `App Summary` block with a Pss(KB) column and an Rss(KB)
column (right-aligned under their headers; `Unknown:` has an Rss figure only), the parts Java Heap,
Native Heap, Code, Stack, Graphics, Private Other and System, then one line
`TOTAL PSS: <kb>  TOTAL RSS: <kb>  TOTAL SWAP PSS: <kb>` (`TOTAL SWAP (KB):` where the kernel
gives no swap PSS; before Android 10, `TOTAL:` for the PSS). An app without a process prints
`No process found for: PKG`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from pytest_mobile_agent import errors

PARTS = ("Java Heap", "Native Heap", "Code", "Stack", "Graphics", "Private Other", "System")
_NUMBER = re.compile(r"\d+")


@dataclass(frozen=True)
class Memory:
    """The app's memory in KiB, as the app's own process reported it."""

    total_pss_kb: int
    total_rss_kb: int | None = None
    total_swap_pss_kb: int | None = None
    parts: dict[str, int] = field(default_factory=dict)
    """PSS by part (Java Heap, Native Heap, Code, Stack, Graphics, Private Other, System)."""

    @property
    def pss_mb(self) -> float:
        return round(self.total_pss_kb / 1024.0, 1)

    def figures(self) -> dict[str, float]:
        shown = {"pss_mb": self.pss_mb}
        for name, kb in self.parts.items():
            shown[f"{name.lower().replace(' ', '_')}_pss_mb"] = round(kb / 1024.0, 1)
        return shown


def parse_meminfo(printed: str, command: str) -> Memory:
    lines = printed.splitlines()
    start = next((i for i, line in enumerate(lines) if line.strip() == "App Summary"), None)
    if start is None:
        if any(line.strip().startswith("No process found for") for line in lines):
            raise errors.MobileAgentError(f"{command}: the app is not running ({printed.strip()[:200]})",
                                          advice="Start it first (app.start()), then measure its memory")
        raise errors.NotSupported(f"{command} printed no App Summary: {printed.strip()[:400]!r}")
    summary = lines[start + 1:]
    header = next((line for line in summary if "Pss(KB)" in line), "")
    pss_end = header.find("Pss(KB)") + len("Pss(KB)") if header else 30
    rss_end = header.find("Rss(KB)") + len("Rss(KB)") if "Rss(KB)" in header else pss_end + 31
    border = (pss_end + rss_end) // 2
    parts: dict[str, int] = {}
    totals: dict[str, int] = {}
    for line in summary:
        stripped = line.strip()
        if stripped.startswith("TOTAL"):
            totals = _totals(stripped)
            break
        label, separator, _ = line.partition(":")
        if not separator or label.strip() not in PARTS:
            continue
        for match in _NUMBER.finditer(line, len(label) + 1):
            if match.end() <= border:
                parts[label.strip()] = int(match.group())
    pss = totals.get("TOTAL PSS", totals.get("TOTAL"))
    if pss is None:
        raise errors.ProtocolError(f"{command}: an App Summary without its TOTAL PSS line: {printed.strip()[-400:]!r}")
    return Memory(pss, totals.get("TOTAL RSS"), totals.get("TOTAL SWAP PSS", totals.get("TOTAL SWAP (KB)")), parts)


def _totals(line: str) -> dict[str, int]:
    """`TOTAL PSS:   105529   TOTAL RSS:   187052   TOTAL SWAP PSS:   0` -> {label: kb}."""
    found = {}
    for match in re.finditer(r"(TOTAL(?: [A-Z]+)*(?: \(KB\))?):\s*(\d+)", line):
        found[match.group(1)] = int(match.group(2))
    return found
