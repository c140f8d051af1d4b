"""The micro suite timed in two trees, pair after pair, each taking its turn to run first.

    python3 benches/micro_pairs.py --base /tmp/base --head /tmp/head --pairs 6

Each tree is a checkout (or `git archive`) with its own `benches/micro.py`, run as
`cd TREE && PYTHONPATH=TREE python benches/micro.py --quiet -o FILE`. For each benchmark, each pair's
head/base ratio of medians, then the median and geometric mean of the ratios. One pair on this
shared VM can read 1.5x either way on identical code; the turns and the median over pairs are what
make a figure. benches/micro_instructions.py counts instructions instead.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import pyperf


def run(tree: Path, out: Path, python: str) -> pyperf.BenchmarkSuite:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    subprocess.run([python, "benches/micro.py", "--quiet", "-o", str(out)], cwd=tree, env=env, check=True,
                   stdout=subprocess.DEVNULL)
    return pyperf.BenchmarkSuite.load(str(out))


def ratios(base: pyperf.BenchmarkSuite, head: pyperf.BenchmarkSuite) -> dict[str, float]:
    return {bench.get_name(): bench.median() / base.get_benchmark(bench.get_name()).median()
            for bench in head.get_benchmarks() if bench.get_name() in base.get_benchmark_names()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", type=Path, required=True)
    parser.add_argument("--head", type=Path, required=True)
    parser.add_argument("--pairs", type=int, default=6)
    parser.add_argument("--python", default=sys.executable)
    args = parser.parse_args()
    table: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory() as scratch:
        for pair in range(args.pairs):
            order = ("base", "head") if pair % 2 == 0 else ("head", "base")
            suites = {name: run(getattr(args, name).resolve(), Path(scratch) / f"{name}_{pair}.json", args.python)
                      for name in order}
            for name, ratio in ratios(suites["base"], suites["head"]).items():
                table.setdefault(name, []).append(ratio)
            print(f"pair {pair + 1} of {args.pairs} done ({order[0]} first)", file=sys.stderr)
    print(f"{'benchmark':22} head/base in each pair, then their median and geometric mean")
    for name, row in table.items():
        cells = " ".join(f"{ratio:6.2f}" for ratio in row)
        print(f"{name:22} {cells}  {statistics.median(row):6.2f}  {statistics.geometric_mean(row):6.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
