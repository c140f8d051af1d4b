"""FrameHasher.key of a synthetic 540x1200 RGB888 frame (the seed's microbenchmark), beside a
plain numpy copy of the same buffer in the same run.

    python benches/bench_frame_hash.py [--iterations N]

Target: the key costs at most 1.5 times the copy (p50 against p50). The key is one xxh3-64 over a
memoryview of the rows below the status bar, so it reads 94 % of the bytes the copy reads and
writes none.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np

from pytest_mobile_agent.emulator import ChangeDetector, Frame, FrameHasher

WIDTH, HEIGHT = 540, 1200
TARGET_RATIO = 1.5


def summary(name: str, samples_us: list[float]) -> str:
    ordered = sorted(samples_us)
    p95 = ordered[int(0.95 * (len(ordered) - 1))]
    return f"{name:<34} p50 {statistics.median(ordered):8.1f} µs   p95 {p95:8.1f} µs   max {ordered[-1]:8.1f} µs"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=2000)
    args = parser.parse_args()

    data = os.urandom(WIDTH * HEIGHT * 3)
    frame = Frame(WIDTH, HEIGHT, data)
    hasher = FrameHasher()
    detector = ChangeDetector(hasher)
    source = np.frombuffer(data, dtype=np.uint8)
    for _ in range(50):  # warm caches and the allocator
        hasher.key(frame)
        source.copy()

    key_us: list[float] = []
    copy_us: list[float] = []
    detect_us: list[float] = []
    clock = time.perf_counter
    for _ in range(args.iterations):  # interleaved, so both see the same machine load
        started = clock()
        hasher.key(frame)
        key_us.append((clock() - started) * 1e6)
        started = clock()
        source.copy()
        copy_us.append((clock() - started) * 1e6)
        started = clock()
        detector.changed(frame)
        detect_us.append((clock() - started) * 1e6)

    ratio = statistics.median(key_us) / statistics.median(copy_us)
    print(
        f"frame {WIDTH}x{HEIGHT} RGB888, {len(data):,} bytes, {args.iterations} iterations, load "
        f"{os.getloadavg()[0]:.2f}"
    )
    print(summary("FrameHasher.key", key_us))
    print(summary("numpy copy of the same buffer", copy_us))
    print(summary("ChangeDetector.changed", detect_us))
    verdict = "meets" if ratio <= TARGET_RATIO else "MISSES"
    print(f"key / copy (p50): {ratio:.2f} ({verdict} the target of at most {TARGET_RATIO})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
