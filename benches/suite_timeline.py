"""When each test ran, on which xdist worker: a pytest plugin that logs each test's start and end,
and a report of the logs (which worker finished last, and what it ran at the end).

    rm -rf /tmp/timeline && PYTHONPATH=benches MOBILE_AGENT_TIMELINE=/tmp/timeline \\
        .tox/test/bin/pytest tests -n 4 --android-serial virtual -q -p suite_timeline
    python3 benches/suite_timeline.py /tmp/timeline            # each worker's end and its last long tests
    python3 benches/suite_timeline.py /tmp/timeline --at 240 300   # what ran from 240 to 300 s

docs/performance.md ("Item 5, a third stop") has what it found.
"""

from __future__ import annotations

import argparse
import os
import time
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


def pytest_runtest_logstart(nodeid: str, location: object) -> None:
    log = _out()
    if log is not None:
        log.write(f"S {time.time():.3f} {nodeid}\n")


def pytest_runtest_logfinish(nodeid: str, location: object) -> None:
    log = _out()
    if log is not None:
        log.write(f"E {time.time():.3f} {nodeid}\n")


@dataclass(frozen=True)
class Ran:
    worker: str
    start: float
    end: float
    nodeid: str

    @property
    def seconds(self) -> float:
        return self.end - self.start


def read(folder: Path) -> list[Ran]:
    ran = []
    for path in sorted(folder.glob("gw*.log")):
        started: dict[str, float] = {}
        for line in path.read_text().splitlines():
            kind, at, nodeid = line.split(" ", 2)
            if kind == "S":
                started[nodeid] = float(at)
            elif nodeid in started:
                ran.append(Ran(path.stem, started.pop(nodeid), float(at), nodeid))
    return ran


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder", type=Path)
    parser.add_argument("--at", nargs=2, type=float, metavar=("FROM", "TO"),
                        help="the tests of over 2 s that ran in this window (seconds from the first start)")
    args = parser.parse_args()
    ran = read(args.folder)
    if not ran:
        raise SystemExit(f"no worker logs (gw*.log) in {args.folder}: run pytest with -n and -p suite_timeline")
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
