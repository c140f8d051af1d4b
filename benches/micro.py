"""The micro suite: the hot paths timed by pyperf, compared with a committed baseline.

    python3 benches/micro.py                                   # run, print each figure
    python3 benches/micro.py --compare benches/baseline.json   # and each as a ratio to its baseline;
                                                               # exit 1 when one is past 1.5x
    python3 benches/micro.py --compare benches/baseline.json --report-only   # print, never fail (CI)
    python3 benches/micro.py --save-baseline benches/baseline.json           # take a new baseline

The seed's `just micro` against reports/micro/baseline.json. pyperf runs each benchmark in worker
processes of its own (calibrated loops, warm-ups, several processes), and its JSON keeps the machine
and the date with the figures: a baseline compares with runs on the machine it was taken on; on
another (CI's, shared) the ratios are reported, not enforced. Benchmarks:

* frame_hash: FrameHasher.key of a 540x1200 RGB888 frame;
* selector_find_text / selector_find_all_3: Selector.of(...).first / .select over the Big tab (573);
* parse_573 / apply_573: parse_snapshot of the Big tab's result, Replica.apply after an eviction;
* codec_encode / codec_decode: the agent protocol's frame codec on the Big tab's response;
* shell_decode: ShellPacketDecoder.feed of 1 MiB of stdout in 64 KiB packets, in 4 KiB reads.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pyperf

sys.path.insert(0, str(Path(__file__).resolve().parent))

from trees import big_tab, evicted  # noqa: E402

from pytest_mobile_agent.adb import wire  # noqa: E402
from pytest_mobile_agent.agent import protocol  # noqa: E402
from pytest_mobile_agent.emulator import Frame, FrameHasher  # noqa: E402
from pytest_mobile_agent.mirror import Replica  # noqa: E402
from pytest_mobile_agent.mirror.selectors import Selector  # noqa: E402
from pytest_mobile_agent.session.backends import ReadReason  # noqa: E402
from pytest_mobile_agent.session.tree import parse_snapshot  # noqa: E402

LIMIT = 1.5


def parse(result: dict[str, Any]) -> Any:
    return parse_snapshot(result, scale=2.625, reason=ReadReason.POLL, read_at=0.0)


def benchmarks() -> dict[str, Any]:
    frame = Frame(540, 1200, os.urandom(540 * 1200 * 3))
    hasher = FrameHasher()
    result = big_tab(573)
    other = evicted(result)
    snapshots = [parse(result), parse(other)]
    replica = Replica()
    replica.apply(snapshots[0])
    view = replica.view
    turn = [0]

    def apply() -> None:
        turn[0] ^= 1
        replica.apply(snapshots[turn[0]])

    message = {"type": "response", "id": 1, "result": result}
    encoded = protocol.encode(message)
    stdout = b"".join(wire.encode_shell_packet(wire.SHELL_STDOUT, os.urandom(65536)) for _ in range(16))
    reads = [stdout[i : i + 4096] for i in range(0, len(stdout), 4096)]

    def shell_decode() -> None:
        decoder = wire.ShellPacketDecoder()
        for chunk in reads:
            decoder.feed(chunk)

    assert view is not None
    return {
        "frame_hash": lambda: hasher.key(frame),
        "selector_find_text": lambda: Selector.of({"text": "Cell 500"}).first(view),
        "selector_find_all_3": lambda: Selector.of({"class_name": "TextView", "clickable": True,
                                                    "text_contains": "99"}).select(view),
        "parse_573": lambda: parse(result),
        "apply_573": apply,
        "codec_encode": lambda: protocol.encode(message),
        "codec_decode": lambda: protocol.decode(encoded),
        "shell_decode": shell_decode,
    }


def compare(suite: pyperf.BenchmarkSuite, baseline_path: Path, report_only: bool) -> int:
    baseline = pyperf.BenchmarkSuite.load(str(baseline_path))
    first = baseline.get_benchmarks()[0]
    meta = first.get_metadata()
    taken = first.get_dates()[0] if first.get_dates() else "?"
    loads = [run.get_metadata().get("load_avg_1min") for run in first.get_runs()]
    load = next((value for value in loads if value is not None), "?")
    print(f"\nagainst {baseline_path} (taken {taken} on {meta.get('hostname', '?')}, "
          f"{meta.get('cpu_model_name', '?')}, {meta.get('cpu_count', '?')} CPUs, load average {load}); "
          f"limit {LIMIT}x{', report only' if report_only else ''}")
    worst = 0.0
    for bench in suite.get_benchmarks():
        name = bench.get_name()
        try:
            before = baseline.get_benchmark(name)
        except KeyError:
            print(f"  {name:22} not in the baseline")
            continue
        ratio = bench.median() / before.median()
        worst = max(worst, ratio)
        flag = "  PAST THE LIMIT" if ratio > LIMIT else ""
        print(
            f"  {name:22} {bench.median() * 1e6:10.2f} µs  baseline {before.median() * 1e6:10.2f} µs  "
            f"{ratio:5.2f}x{flag}"
        )
    if worst > LIMIT and not report_only:
        print(f"a benchmark ran at {worst:.2f}x its baseline, past {LIMIT}x")
        return 1
    return 0


def main() -> int:
    runner = pyperf.Runner(processes=3, values=3, warmups=1, min_time=0.05, program_args=(sys.argv[0],))
    runner.argparser.add_argument("--compare", type=Path, help="a baseline JSON to compare with")
    runner.argparser.add_argument("--report-only", action="store_true", help="print the ratios, never fail")
    runner.argparser.add_argument("--save-baseline", type=Path, help="write this run as the new baseline")
    args = runner.parse_args()
    results = [runner.bench_func(name, fn) for name, fn in benchmarks().items()]
    if args.worker:
        return 0
    suite = pyperf.BenchmarkSuite([r for r in results if r is not None])
    if args.save_baseline:
        suite.dump(str(args.save_baseline), replace=True)
        print(f"baseline written to {args.save_baseline}")
    if args.compare:
        return compare(suite, args.compare, args.report_only)
    return 0


if __name__ == "__main__":
    sys.exit(main())
