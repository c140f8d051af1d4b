"""Timing helpers shared by the benches (run as scripts, so `benches/` is on sys.path)."""

from __future__ import annotations

import datetime
import os
import statistics
import time
from collections.abc import Callable
from typing import Any


def timed_once(fn: Callable[[], Any]) -> tuple[float, Any]:
    """Milliseconds one call took, and what it returned."""
    started = time.perf_counter()
    value = fn()
    return (time.perf_counter() - started) * 1000, value


def timed(fn: Callable[[], object], runs: int) -> list[float]:
    """Milliseconds per call, in call order."""
    return [timed_once(fn)[0] for _ in range(runs)]


def percentiles(times: list[float]) -> tuple[float, float, float]:
    """p50, p95 and max."""
    ordered = sorted(times)
    return statistics.median(ordered), ordered[max(0, int(round(len(ordered) * 0.95)) - 1)], ordered[-1]


def summary(times: list[float], digits: int = 2) -> str:
    p50, p95, top = percentiles(times)
    width = digits + 6
    return (f"p50 {p50:{width}.{digits}f} ms  p95 {p95:{width}.{digits}f} ms  max {top:{width}.{digits}f} ms  "
            f"n={len(times)}")


def interleaved(candidates: dict[str, Callable[[], object]], rounds: int, number: int) -> dict[str, list[float]]:
    """Seconds per call of each candidate, `rounds` samples each of `number` calls, the candidates
    taking turns round after round: a change in the host's load falls on all of them alike, so the
    ratio of two candidates' medians is measured in one run."""
    samples: dict[str, list[float]] = {name: [] for name in candidates}
    for fn in candidates.values():  # warm: caches filled, code paths specialised
        fn()
    for _ in range(rounds):
        for name, fn in candidates.items():
            started = time.perf_counter()
            for _ in range(number):
                fn()
            samples[name].append((time.perf_counter() - started) / number)
    return samples


def median(values: list[float]) -> float:
    return statistics.median(values)


def stamp() -> str:
    """When and under what load a bench ran, for the first line of its figures."""
    return f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, load average {os.getloadavg()[0]:.2f}"
