"""The micro suite's benchmarks counted in instructions, two trees side by side.

    python3 benches/micro_instructions.py --base /tmp/base --head /tmp/head
    python3 benches/micro_instructions.py --base /tmp/base --head . --only codec_decode apply_573

Each tree is a checkout (or `git archive`) holding its own `benches/micro.py`; each benchmark's
function (from that tree's `micro.benchmarks()`) runs under valgrind's cachegrind, `--cache-sim=no`,
in a process of its own with that tree first on `sys.path`, LOW and then HIGH times; the
instructions per call are the difference over HIGH - LOW (the imports, the set-up and any first-call
work cancel out).

Why: this machine is a shared VM whose speed moves by up to 45 % within minutes, so two pyperf runs
of identical code can differ by 1.5x (docs/performance.md). An instruction count does not move with
the neighbours. It does not see memory and cache effects either, so it stands beside the timed
suite, not in its place. Exit 1 when a benchmark's head runs more than LIMIT times its base's
instructions. Needs valgrind (`apt-get install valgrind`).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

NAMES = ("frame_hash", "selector_find_text", "selector_find_all_3", "parse_573", "apply_573",
         "codec_encode", "codec_decode", "shell_decode")
LOW, HIGH = 5, 45
LIMIT = 1.10
RUN = """
import gc, sys
sys.path.insert(0, 'benches')
sys.argv = ['micro.py']
import micro
fn = micro.benchmarks()[{name!r}]
gc.collect()  # the set-up's garbage is not the benchmark's
for _ in range({times}):
    fn()
"""
I_REFS = re.compile(r"I\s+refs:\s+([\d,]+)")


def instructions(tree: Path, name: str, times: int, python: str) -> int:
    """The instructions a process of `tree`'s micro suite runs for `times` calls of `name`."""
    command = ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
               python, "-c", RUN.format(name=name, times=times)]
    env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONHASHSEED": "0"}
    done = subprocess.run(command, cwd=tree, env=env, capture_output=True, text=True, check=False)
    found = I_REFS.search(done.stderr)
    if done.returncode != 0 or found is None:
        raise SystemExit(
            f"{name} in {tree} did not run under valgrind (exit {done.returncode}):\n{done.stderr[-2000:]}")
    return int(found.group(1).replace(",", ""))


def per_call(tree: Path, name: str, python: str) -> float:
    return (instructions(tree, name, HIGH, python) - instructions(tree, name, LOW, python)) / (HIGH - LOW)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", type=Path, required=True, help="the tree to compare with")
    parser.add_argument("--head", type=Path, required=True, help="the tree under test")
    parser.add_argument("--only", nargs="+", choices=NAMES, default=list(NAMES), help="these benchmarks alone")
    parser.add_argument("--python", default=sys.executable, help="the interpreter (with the test env's packages)")
    parser.add_argument("--limit", type=float, default=LIMIT, help="fail past this ratio (default %(default)s)")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed: apt-get install valgrind")
    jobs = [(tree, name) for name in args.only for tree in (args.base.resolve(), args.head.resolve())]
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        counts = list(pool.map(lambda job: per_call(job[0], job[1], args.python), jobs))
    print(f"{'benchmark':22} {'base instr/call':>16} {'head instr/call':>16}  ratio")
    worst = 0.0
    for index, name in enumerate(args.only):
        base, head = counts[2 * index], counts[2 * index + 1]
        ratio = head / base
        worst = max(worst, ratio)
        flag = "  PAST THE LIMIT" if ratio > args.limit else ""
        print(f"{name:22} {base:16,.0f} {head:16,.0f}  {ratio:5.2f}x{flag}")
    return 1 if worst > args.limit else 0


if __name__ == "__main__":
    sys.exit(main())
