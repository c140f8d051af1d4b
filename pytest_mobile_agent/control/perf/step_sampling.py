"""Each action of a test measured: a step listener (mirror/steps.py) that reads the app's counters
after every top-level action and keeps, beside the step, what changed since the previous reading.

Sampling costs a shell command per action, so it runs only for a test that asks (the `perf` fixture
or `@pytest.mark.perf`). A step's figures (`step.measures["perf"]`, written to the trace beside it):
the frames the app rendered since the previous reading (their count, janky share and percentiles,
under Macrobenchmark's names), its total PSS now and the change, its CPU time over the span, and for
`app.start` the launch's TotalTime, WaitTime and launch state. The budget's limits are checked on
each step's figures; what broke is kept in `violations` for the plugin to fail the test with.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from pytest_mobile_agent import errors
from pytest_mobile_agent.control.perf.budget import Budget
from pytest_mobile_agent.control.perf.launch import Launch
from pytest_mobile_agent.control.perf.sampler import Perf, Sample
from pytest_mobile_agent.mirror.steps import Step

log = logging.getLogger("pytest_mobile_agent.control.perf")

MEASURED = frozenset({
    "tap", "tap_at", "long_press", "swipe", "swipe_within", "scroll_until", "type_text", "press_key",
    "element.tap", "element.long_press", "element.type_text", "element.swipe", "element.scroll_until",
    "app.start", "app.to_foreground", "app.open_url",
})
"""The steps that make the app draw: each is followed by a reading."""


class StepPerf:
    """The listener: a reading after each measured top-level step, its deltas on the step."""

    def __init__(self, perf: Perf, budget: Budget | None = None) -> None:
        self.perf = perf
        self.budget = budget or Budget()
        self.previous: Sample | None = None
        self.violations: list[str] = []
        self.measured: list[tuple[str, dict[str, Any]]] = []
        """(step name, its figures) for every measured step, in order (JUnit's properties)."""

    def step_started(self, step: Step) -> None:
        return None

    def step_ended(self, step: Step) -> None:
        if step.depth != 0 or step.name not in MEASURED:
            return
        try:
            sample = self.perf.sample()
        except errors.MobileAgentError as exc:
            log.debug("no perf sample after %s: %s", step.name, exc)
            step.measures["perf"] = {"error": str(exc)[:300]}
            return
        figures = figures_of(step, sample, self.previous)
        self.previous = sample
        step.measures["perf"] = figures
        self.measured.append((step.name, figures))
        flat = {"pss_mb": figures.get("memory", {}).get("pss_mb")} if "memory" in figures else {}
        if figures.get("frames", {}).get("gfxFrameTotalCount"):
            flat["jank_percent"] = figures["frames"]["gfxFrameJankPercent"]
        if "launch" in figures:
            flat["startup_ms"] = figures["launch"].get("startup_ms")
        self.violations.extend(self.budget.exceeded(step_label(step, len(self.measured)), flat))


def step_label(step: Step, number: int) -> str:
    """`swipe (measured step 2, test_feed.py:12)`: how a failure names the step."""
    where = f", {Path(step.source.file).name}:{step.source.line}" if step.source is not None else ""
    return f"{step.name} (measured step {number}{where})"


def figures_of(step: Step, sample: Sample, previous: Sample | None) -> dict[str, Any]:
    figures: dict[str, Any] = {}
    if isinstance(step.result, Launch):
        launch = step.result
        figures["launch"] = {"state": launch.state, "startup_ms": launch.total_ms, "wait_ms": launch.wait_ms,
                             "timed": launch.timed}
    if sample.pid is None:
        figures["app"] = "not running"
        return figures
    same_process = previous is not None and previous.pid == sample.pid
    if sample.frames is not None:
        earlier = previous.frames if same_process and previous is not None else None
        span = sample.frames.minus(earlier) if earlier is not None else sample.frames
        figures["frames"] = span.metrics()
    if sample.memory is not None:
        memory: dict[str, Any] = {"pss_mb": sample.memory.pss_mb}
        if same_process and previous is not None and previous.memory is not None:
            memory["delta_pss_mb"] = round(sample.memory.pss_mb - previous.memory.pss_mb, 1)
        figures["memory"] = memory
    if sample.cpu_ms is not None:
        before = previous.cpu_ms if same_process and previous is not None and previous.cpu_ms is not None else 0.0
        figures["cpu_ms"] = round(sample.cpu_ms - before, 1)
    return figures
