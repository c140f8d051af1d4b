"""Leaks and soak on the virtual device: attach/stop cycles and snapshot+tap cycles, with the host's
threads, file descriptors and memory (tracemalloc's traced bytes and the RSS) measured before and
after, and the device checked for agents, processes and sockets left behind.

    python3 benches/soak.py                          # 200 attach/stop cycles, 1,000 snapshot+tap cycles
    python3 benches/soak.py --attach 50 --taps 200   # shorter
    python3 benches/soak.py --no-tracemalloc         # RSS only (tracemalloc slows Python ~2x)

Each phase runs a few warm-up cycles first (lazy imports, caches, the logcat ring filling), then
measures. The growth bounds it checks (`BOUNDS`) are fixed, not per cycle: a leak of one thread, one
descriptor or a few KiB per cycle exceeds them long before the end. The bounded test version is
tests/faults/test_soak.py; docs/reliability.md records the figures.
"""

from __future__ import annotations

import argparse
import gc
import os
import socket
import statistics
import sys
import threading
import time
import tracemalloc
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the repository root, for tests.support

from tests.support.lab import Bench, bench  # noqa: E402

BOUNDS = {"threads": 2, "fds": 4, "traced_kib": 2048, "rss_kib": 16384, "device_processes": 0,
          "device_sockets": 0, "agents_left": 0}
SETTLE_S = 5.0  # reader threads notice a close within 0.5 s; the agent double's within 0.25 s


_WATCHED = (threading.Thread, threading.Event, threading.Condition, socket.socket)


def instances() -> dict[str, int]:
    """Live objects per class, for the package's own classes and threads, events, conditions and
    sockets: a class that gains one per cycle is a leak, whatever its size."""
    counts: dict[str, int] = {}
    for obj in gc.get_objects():
        kind = type(obj)
        module = getattr(kind, "__module__", None)
        if (isinstance(module, str) and module.startswith("pytest_mobile_agent")) or isinstance(obj, _WATCHED):
            name = f"{module}.{kind.__qualname__}"
            counts[name] = counts.get(name, 0) + 1
    return counts


def leaked_per_cycle(before: dict[str, int], after: dict[str, int], cycles: int) -> dict[str, int]:
    """The classes that gained at least one instance per cycle (half of one, for short runs)."""
    threshold = max(2, cycles // 2)
    return {name: count - before.get(name, 0) for name, count in after.items()
            if count - before.get(name, 0) >= threshold}


@dataclass(frozen=True)
class Resources:
    threads: int
    fds: int
    traced_kib: float
    rss_kib: int
    device_processes: int
    device_sockets: int
    agents_left: int
    instances: dict[str, int] = field(default_factory=dict, compare=False, repr=False)

    def growth(self, before: Resources) -> dict[str, float]:
        return {name: getattr(self, name) - getattr(before, name) for name in BOUNDS}


def _rss_kib() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def _device_sockets(model: Any) -> int:
    sockets = model.sockets
    return sum(len(getattr(sockets, name, ())) for name in ("_abstract", "_tcp"))


def measure(vd: Bench, *, baseline: Resources | None = None) -> Resources:
    """The resources now; with a baseline, after waiting (up to SETTLE_S) for threads to wind down."""
    deadline = time.monotonic() + SETTLE_S
    while True:
        gc.collect()
        now = Resources(
            threads=threading.active_count(),
            fds=len(os.listdir("/proc/self/fd")),
            traced_kib=tracemalloc.get_traced_memory()[0] / 1024 if tracemalloc.is_tracing() else 0.0,
            rss_kib=_rss_kib(),
            device_processes=sum(1 for p in vd.model.processes.processes() if not p.dead),
            device_sockets=_device_sockets(vd.model),
            agents_left=len(vd.agent_pids()),
            instances=instances(),
        )
        if baseline is None or time.monotonic() >= deadline:
            return now
        growth = now.growth(baseline)
        if growth["threads"] <= 0 and growth["fds"] <= 0 and growth["device_processes"] <= 0:
            return now
        time.sleep(0.05)


def attach_stop_cycles(vd: Bench, count: int) -> list[float]:
    """`count` launches and stops of the agent: milliseconds per cycle."""
    times = []
    for _ in range(count):
        started = time.perf_counter()
        attached = vd.deployer().attach()
        attached.connection.request("tap", {"x": 10, "y": 10}, timeout=5.0)
        attached.stop()
        times.append((time.perf_counter() - started) * 1000)
    return times


def snapshot_tap_cycles(vd: Bench, count: int) -> list[float]:
    """`count` snapshots through a mirror and taps through the session: milliseconds per cycle."""
    from pytest_mobile_agent.mirror import Mirror
    from pytest_mobile_agent.session import ControllerChoice, ReadReason, Session, select_paths

    session = Session.start_selected(
        vd.deployer().attach(), select_paths(vd.serial, True, ControllerChoice.Off(), None), device=vd.device
    )
    times = []
    try:
        screen = Mirror(session.backend(), timeout=10.0)
        x, y = screen.wait_for(id="login_heading").center  # a tap there changes nothing
        for _ in range(count):
            started = time.perf_counter()
            screen.refresh(ReadReason.POLL)
            session.input.tap(x, y)
            times.append((time.perf_counter() - started) * 1000)
    finally:
        session.stop()
    return times


def run_phase(vd: Bench, name: str, cycles: Any, count: int, warmup: int) -> tuple[Resources, Resources, list[float]]:
    cycles(vd, warmup)
    before = measure(vd)
    times = cycles(vd, count)
    after = measure(vd, baseline=before)
    return before, after, times


def summary(name: str, count: int, before: Resources, after: Resources, times: list[float]) -> list[str]:
    ordered = sorted(times)
    p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
    growth = after.growth(before)
    over = {k: v for k, v in growth.items() if v > BOUNDS[k]}
    leaked = leaked_per_cycle(before.instances, after.instances, count)
    lines = [
        f"{name}: {count} cycles, p50 {statistics.median(ordered):.1f} ms, p95 {p95:.1f} ms, max {ordered[-1]:.1f} ms,"
        f" total {sum(times) / 1000:.1f} s",
        "  before: " + ", ".join(f"{k} {getattr(before, k):g}" for k in BOUNDS),
        "  after:  " + ", ".join(f"{k} {getattr(after, k):g}" for k in BOUNDS),
        "  growth: " + ", ".join(f"{k} {v:+.0f} (bound {BOUNDS[k]})" for k, v in growth.items()),
        f"  {'OVER THE BOUND: ' + ', '.join(over) if over else 'within every bound'}",
        f"  {'LEAKED PER CYCLE: ' + str(leaked) if leaked else 'no class gained an instance per cycle'}",
    ]
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--attach", type=int, default=200, help="attach/stop cycles (default 200)")
    parser.add_argument("--taps", type=int, default=1000, help="snapshot+tap cycles (default 1000)")
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--no-tracemalloc", action="store_true")
    args = parser.parse_args(argv)
    if not args.no_tracemalloc:
        tracemalloc.start()
    failed = False
    with bench() as vd:
        vd.open("Login")
        for name, cycles, count in (("attach/stop", attach_stop_cycles, args.attach),
                                    ("snapshot+tap", snapshot_tap_cycles, args.taps)):
            if count <= 0:
                continue
            before, after, times = run_phase(vd, name, cycles, count, args.warmup)
            for line in summary(name, count, before, after, times):
                print(line)
            failed |= any(v > BOUNDS[k] for k, v in after.growth(before).items())
            failed |= bool(leaked_per_cycle(before.instances, after.instances, count))
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
