"""The trace viewer shows a step's perf figures (docs/trace-format.md, a step's `perf`) beside the
call: an app start's launch, the frames it rendered with their janky share and percentiles, the
app's PSS and its change, its CPU time; a step without figures shows none."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("selenium.webdriver", reason="Selenium drives the browser: pip install selenium")

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402

from pytest_mobile_agent.evidence import tracefile  # noqa: E402
from tests.inspector.test_trace_viewer_page import browser, fifty_steps, open_trace, press  # noqa: E402,F401
from tests.support.browser import NEEDS_CHROMIUM  # noqa: E402

pytestmark = NEEDS_CHROMIUM

LAUNCH = {"launch": {"state": "COLD", "startup_ms": 412, "wait_ms": 430, "timed": True},
          "frames": {"gfxFrameTotalCount": 3.0, "jankyFrameCount": 1.0, "gfxFrameJankPercent": 33.33,
                     "gfxFrameTime50thPercentileMs": 5.0, "gfxFrameTime90thPercentileMs": 61.0,
                     "gfxFrameTime95thPercentileMs": 61.0, "gfxFrameTime99thPercentileMs": 61.0},
          "memory": {"pss_mb": 58.0}, "cpu_ms": 120.0}
SWIPE = {"frames": {"gfxFrameTotalCount": 14.0, "jankyFrameCount": 14.0, "gfxFrameJankPercent": 100.0,
                    "gfxFrameTime50thPercentileMs": 30.0, "gfxFrameTime90thPercentileMs": 44.0,
                    "gfxFrameTime95thPercentileMs": 44.0, "gfxFrameTime99thPercentileMs": 44.0},
         "memory": {"pss_mb": 63.9, "delta_pss_mb": 5.9}, "cpu_ms": 460.0}


def test_a_steps_perf_figures_are_shown_beside_the_call(browser: Any, tmp_path: Path) -> None:  # noqa: F811
    document, files = fifty_steps()
    document["steps"] = document["steps"][:3]
    document["steps"][0].update(name="app.start", perf=LAUNCH)
    document["steps"][1].update(name="swipe", perf=SWIPE)
    path = tmp_path / "trace.zip"
    tracefile.write_trace(path, document, files)
    context = open_trace(browser, path)
    try:
        call = browser.find_element(By.ID, "call").text
        assert "launch COLD, TotalTime 412 ms, WaitTime 430 ms" in call
        assert "frames 3 rendered, 1 janky (33.33%)" in call and "cpu 120 ms" in call
        press(browser, Keys.ARROW_DOWN)
        call = browser.find_element(By.ID, "call").text
        assert "frames 14 rendered, 14 janky (100%)" in call
        assert "frame time p50 30 ms, p90 44 ms, p95 44 ms, p99 44 ms" in call
        assert "memory PSS 63.9 MB (+5.9 MB)" in call
        press(browser, Keys.ARROW_DOWN)
        assert "frames" not in browser.find_element(By.ID, "call").text  # a step nobody measured
    finally:
        context.__exit__(None, None, None)
