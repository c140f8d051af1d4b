"""When each test ran, on which xdist worker: a pytest plugin that logs each test's start and end,
and a report of the logs (which worker finished last, and what it ran at the end).

    rm -rf /tmp/timeline && PYTHONPATH=benches MOBILE_AGENT_TIMELINE=/tmp/timeline \\
        .tox/test/bin/pytest tests -n 4 --android-serial virtual -q -p suite_timeline
    python3 benches/suite_timeline.py /tmp/timeline            # each worker's end and its last long tests
    python3 benches/suite_timeline.py /tmp/timeline --at 240 300   # what ran from 240 to 300 s
    python3 benches/suite_timeline.py /tmp/timeline --cpu 30       # the files and tests that took most CPU

A test's CPU is its worker's (every thread, `time.process_time`) plus what the children the worker
reaped during the test used (`RUSAGE_CHILDREN`); a grandchild its parent did not wait for is missed.

docs/performance.md ("Item 5, a third stop") has what it found.
"""

from __future__ import annotations

import argparse
import os
import resource
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

LONG_S = 2.0

_log: TextIO | None = None


def _out() -> TextIO | None:
    global _log
    folder = os.environ.get("MOBILE_AGENT_TIMELINE")
    if folder and _log is None:
        Path(folder).mkdir(parents=True, exist_ok=True)
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        _log = open(Path(folder) / f"{worker}.log", "a", buffering=1)  # noqa: SIM115 - open for the run
    return _log


def _cpu() -> str:
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return f"{time.process_time():.3f} {children.ru_utime + children.ru_stime:.3f}"


def pytest_runtest_logstart(nodeid: str, location: object) -> None:
    os.environ.setdefault("TIMELINE_OUTER_TEST", nodeid)  # a process this test starts inherits it
    log = _out()
    if log is not None:
        log.write(f"S {time.time():.3f} {_cpu()} {nodeid}\n")


def pytest_runtest_logfinish(nodeid: str, location: object) -> None:
    if os.environ.get("TIMELINE_OUTER_TEST") == nodeid:
        del os.environ["TIMELINE_OUTER_TEST"]
    log = _out()
    if log is not None:
        log.write(f"E {time.time():.3f} {_cpu()} {nodeid}\n")


@dataclass(frozen=True)
class Ran:
    worker: str
    start: float
    end: float
    nodeid: str
    own_cpu: float = 0.0
    children_cpu: float = 0.0

    @property
    def seconds(self) -> float:
        return self.end - self.start


def read(folder: Path) -> list[Ran]:
    ran = []
    for path in sorted(folder.glob("gw*.log")):
        started: dict[str, tuple[float, float, float]] = {}
        for line in path.read_text().splitlines():
            kind, at, own, children, nodeid = line.split(" ", 4)
            now = (float(at), float(own), float(children))
            if kind == "S":
                started[nodeid] = now
            elif nodeid in started:
                begun = started.pop(nodeid)
                ran.append(Ran(path.stem, begun[0], now[0], nodeid, now[1] - begun[1], now[2] - begun[2]))
    return ran


def report_cpu(ran: list[Ran], top: int) -> None:
    per_file: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0])
    for r in ran:
        row = per_file[r.nodeid.split("::")[0]]
        row[0] += r.own_cpu
        row[1] += r.children_cpu
        row[2] += 1
    own = sum(r.own_cpu for r in ran)
    children = sum(r.children_cpu for r in ran)
    print(f"all {len(ran)} tests: {own:.0f} s of the workers' CPU, {children:.0f} s of their children's")
    print(f"the {top} files that took most CPU (own + children, tests):")
    for name, (o, c, n) in sorted(per_file.items(), key=lambda kv: -(kv[1][0] + kv[1][1]))[:top]:
        print(f"  {o + c:7.1f} s  {o:6.1f} + {c:6.1f}  {n:4d}  {name}")
    print(f"the {top} tests that took most CPU (own + children):")
    for r in sorted(ran, key=lambda r: -(r.own_cpu + r.children_cpu))[:top]:
        print(f"  {r.own_cpu + r.children_cpu:7.1f} s  {r.own_cpu:6.1f} + {r.children_cpu:6.1f}  {r.nodeid}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder", type=Path)
    parser.add_argument("--at", nargs=2, type=float, metavar=("FROM", "TO"),
                        help="the tests of over 2 s that ran in this window (seconds from the first start)")
    parser.add_argument("--cpu", type=int, metavar="TOP", help="the TOP files and tests by CPU")
    args = parser.parse_args()
    ran = read(args.folder)
    if not ran:
        raise SystemExit(f"no worker logs (gw*.log) in {args.folder}: run pytest with -n and -p suite_timeline")
    if args.cpu:
        report_cpu(ran, args.cpu)
        return
    zero = min(r.start for r in ran)
    if args.at:
        low, high = args.at
        for r in sorted(ran, key=lambda r: r.start):
            if r.seconds > LONG_S and r.end - zero > low and r.start - zero < high:
                print(f"{r.worker}  {r.start - zero:6.0f} s  {r.seconds:5.1f} s  {r.nodeid}")
        return
    for worker in sorted({r.worker for r in ran}):
        mine = sorted((r for r in ran if r.worker == worker), key=lambda r: r.start)
        done = mine[-1].end - zero
        print(f"{worker}: {len(mine)} tests, done at {done:.0f} s; its last tests of over {LONG_S:.0f} s:")
        for r in [r for r in mine if r.seconds > LONG_S][-3:]:
            print(f"    from {r.start - zero:6.0f} s  {r.seconds:5.1f} s  {r.nodeid}")


if __name__ == "__main__":
    main()
