"""Issue 27's host-starvation reproduction: a pytest run repeated N times inside a CPU quota, with a
busy loop beside it in the same quota, and the failures each run had.

    sudo python3 benches/quota_runs.py --runs 20
    sudo python3 benches/quota_runs.py --runs 40 --quota-us 25000 --period-us 100000 -- \\
        tests/device examples --android-serial virtual -q

The quota is a cgroup-v1 `cpu` group made for the run under /sys/fs/cgroup/cpu
(`cpu.cfs_quota_us` per `cpu.cfs_period_us`: 25,000 per 100,000 is a quarter of one CPU), holding
the busy loop and each pytest process with all its threads and children (written to
`cgroup.procs` before pytest starts). The group is removed at the end, the busy loop stopped by its
pid. Needs root and the cgroup v1 `cpu` controller; the pytest arguments default to the issue's
run, `tests/device` and the examples on the virtual device. With `--snapshot DIR` the runs use the
sources in DIR (a `git archive` of the commit to measure), so editing the worktree meanwhile does
not change what is measured. With `--bench SCRIPT` each run is that script (its arguments after
`--`) instead of pytest, and the run's line is the script's last line:

    sudo python3 benches/quota_runs.py --runs 3 --bench benches/bench_tap_hold.py -- --taps 300

docs/reliability.md ("A tap under a starved host") has the figures.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

CPU_ROOT = Path("/sys/fs/cgroup/cpu")
DEFAULT_PYTEST = ("tests/device", "examples", "--android-serial", "virtual", "-q", "-p", "no:cacheprovider",
                  "--log-level", "INFO")  # a failure's captured log says what the devices did
ENV = {"HYPOTHESIS_PROFILE": "ci", "PYTHONDONTWRITEBYTECODE": "1"}
SUMMARY = re.compile(r"^=*\s*(\d+ (?:passed|failed|error).*) in ([\d.]+)s")
FAILED = re.compile(r"^(FAILED|ERROR) (\S+)")


@dataclass
class Run:
    number: int
    exit_code: int
    seconds: float
    summary: str
    failures: list[str]


@contextlib.contextmanager
def cpu_quota(quota_us: int, period_us: int) -> Iterator[Path]:
    """A cgroup-v1 cpu group with this quota, removed afterwards (its tasks moved back to the root)."""
    if not (CPU_ROOT / "cpu.cfs_quota_us").is_file():
        raise SystemExit(f"no cgroup v1 cpu controller at {CPU_ROOT}")
    group = CPU_ROOT / f"mobile-agent-quota-{os.getpid()}"
    group.mkdir()
    try:
        (group / "cpu.cfs_period_us").write_text(str(period_us))
        (group / "cpu.cfs_quota_us").write_text(str(quota_us))
        yield group
    finally:
        _remove(group)


def _remove(group: Path) -> None:
    """Move what is left in the group to the root group, then remove it; a process that was just
    killed may hold it for a moment while it exits."""
    deadline = time.monotonic() + 10.0
    while True:
        for pid in (group / "cgroup.procs").read_text().split():
            with contextlib.suppress(OSError):  # a process that ended meanwhile
                (CPU_ROOT / "cgroup.procs").write_text(pid)
        try:
            group.rmdir()
            return
        except OSError:
            if time.monotonic() >= deadline:
                raise
            time.sleep(0.1)


@contextlib.contextmanager
def busy_loop(group: Path) -> Iterator[int]:
    """One process spinning inside the group; stopped by its pid."""
    spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        (group / "cgroup.procs").write_text(str(spinner.pid))
        yield spinner.pid
    finally:
        spinner.kill()
        spinner.wait()


def run_once(number: int, group: Path, command: list[str], cwd: Path, log_dir: Path) -> Run:
    def join_group() -> None:
        (group / "cgroup.procs").write_text(str(os.getpid()))

    log = log_dir / f"run-{number:02d}.log"
    started = time.monotonic()
    with log.open("wb") as out:
        done = subprocess.run([sys.executable, *command], cwd=cwd, stdout=out,
                              stderr=subprocess.STDOUT, env={**os.environ, **ENV}, preexec_fn=join_group,
                              check=False)
    seconds = time.monotonic() - started
    text = log.read_text(errors="replace").splitlines()
    summary = next((m.group(1) for line in reversed(text) if (m := SUMMARY.match(line))), None)
    if summary is None:  # not pytest: the script's last line
        summary = next((line.strip() for line in reversed(text) if line.strip()), "no output")
    failures = [m.group(2) for line in text if (m := FAILED.match(line))]
    return Run(number, done.returncode, seconds, summary, failures)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--quota-us", type=int, default=25_000)
    parser.add_argument("--period-us", type=int, default=100_000)
    parser.add_argument("--no-busy-loop", action="store_true", help="the quota alone, nothing beside pytest")
    parser.add_argument("--snapshot", type=Path, default=None, help="run the sources in this directory")
    parser.add_argument("--logs", type=Path, default=Path("quota-runs"), help="each run's output goes here")
    parser.add_argument("--bench", type=Path, default=None, help="run this script instead of pytest")
    parser.add_argument("pytest_args", nargs="*", help="after --: pytest's (or the script's) arguments")
    args = parser.parse_args()
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    cwd = (args.snapshot or Path(__file__).resolve().parent.parent).resolve()
    if args.bench is not None:
        command = [str(args.bench), *args.pytest_args]
    else:
        command = ["-m", "pytest", *(args.pytest_args or DEFAULT_PYTEST)]
    args.logs.mkdir(parents=True, exist_ok=True)
    print(f"{args.runs} runs of {' '.join(command)} in {cwd}, quota {args.quota_us}/{args.period_us} us"
          f"{'' if args.no_busy_loop else ' with a busy loop beside it'}", flush=True)
    runs: list[Run] = []
    # a background job ignores SIGINT: SIGTERM stops the runs too, the group removed and the loop stopped
    signal.signal(signal.SIGTERM, lambda number, frame: sys.exit(128 + number))
    with cpu_quota(args.quota_us, args.period_us) as group, contextlib.ExitStack() as stack:
        if not args.no_busy_loop:
            stack.enter_context(busy_loop(group))
        for number in range(1, args.runs + 1):
            run = run_once(number, group, command, cwd, args.logs)
            runs.append(run)
            verdict = "ok" if run.exit_code == 0 else f"exit {run.exit_code}: {', '.join(run.failures) or 'see log'}"
            print(f"run {number}/{args.runs}: {run.summary} ({run.seconds:.0f} s wall) {verdict}", flush=True)
    failed = [r for r in runs if r.exit_code != 0]
    print(f"{len(failed)} of {len(runs)} runs failed")
    for r in failed:
        for name in r.failures or ["(no test named: see the log)"]:
            print(f"  run {r.number}: {name}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
