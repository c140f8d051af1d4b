"""Frames per second the controller client sustains from the controller double, hashing on.

    python benches/bench_frame_stream.py [--seconds S] [--width W] [--rate HZ] [--scale-in-double]

The double runs in a child process (as an emulator would: its own process and GIL), serving a
display that changes `--rate` times a second (default: as fast as the double can send, i.e.
every frame it sends is new). The display holds six full-size images and, as an emulator scales on
its GPU, each already scaled to the stream's size (`render_at`, made once with the same 2x reduce
the double uses); `--scale-in-double` leaves `render_at` out, so the double reduces every frame
itself (2 to 2.5 ms of its CPU a frame here). The client subscribes to RGB888 frames `--width`
pixels wide, keys every frame with FrameHasher and feeds the ChangeDetector, and reports frames per
second, the inter-arrival p50/p95/max, the frames the double dropped (seq gaps), the reader's
overflow, and the CPU per frame of each process. Targets: at least 150 frames per second at
540x1200, the client's CPU at most 1 ms a frame.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from pytest_mobile_agent.emulator import ChangeDetector, Controller, FrameHasher, resolve
from pytest_mobile_agent.emulator.discovery import DISCOVERY_DIR_ENV

TARGET_FPS = 150
TARGET_CLIENT_CPU_MS = 1.0
SERIAL = "emulator-5554"

CHILD = r'''
import sys, threading, time
from PIL import Image
from pytest_mobile_agent.virtual.fronts.controller import ControllerDouble

rate = float(sys.argv[1])
scale_in_double = sys.argv[2] == "1"

class Animated:
    """1080x2400 frames that differ from each other; the counter moves at `rate` Hz, or on
    every render when rate is 0 (so each frame the double sends is a new one)."""
    size = (1080, 2400)
    density = 420
    def __init__(self):
        self.changes = 0
        self.condition = threading.Condition()
        self.images = [Image.new("RGB", self.size, (i * 40, 255 - i * 40, 128)) for i in range(6)]
        self.scaled = {}
        if not scale_in_double:
            self.render_at = self._render_at
    def render(self):
        image = self.images[self.changes % len(self.images)]
        if rate == 0:
            self.bump()
        return image
    def _render_at(self, width, height):
        factor = self.size[0] // width
        if (width * factor, height * factor) != self.size or factor == 1:
            return None
        key = (self.changes % len(self.images), factor)
        if key not in self.scaled:
            self.scaled[key] = self.images[key[0]].reduce(factor)
        image = self.scaled[key]
        if rate == 0:
            self.bump()
        return image
    def bump(self):
        with self.condition:
            self.changes += 1
            self.condition.notify_all()
    def touch(self, x, y, pressed):
        pass

display = Animated()
double = ControllerDouble(display, serial="emulator-5554").start()
print("ready", double.port, flush=True)
stop = threading.Event()
def tick():
    while not stop.wait(1.0 / rate):
        display.bump()
if rate > 0:
    threading.Thread(target=tick, daemon=True).start()
sys.stdin.read()  # until the parent closes our stdin
stop.set()
double.stop()
'''


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--width", type=int, default=540)
    parser.add_argument("--rate", type=float, default=0.0, help="display changes per second; 0: every frame")
    parser.add_argument("--scale-in-double", action="store_true", help="the double reduces every frame itself")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="mobile-agent-bench-") as tmp:
        env = {**os.environ, DISCOVERY_DIR_ENV: str(Path(tmp) / "running")}
        os.environ[DISCOVERY_DIR_ENV] = env[DISCOVERY_DIR_ENV]
        child = subprocess.Popen(
            [sys.executable, "-c", CHILD, str(args.rate), "1" if args.scale_in_double else "0"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env,
        )
        try:
            assert child.stdout is not None
            ready = child.stdout.readline().decode().split()
            if not ready or ready[0] != "ready":
                print("the double did not start", file=sys.stderr)
                return 1
            return run(args, lambda: cpu_seconds(child.pid))
        finally:
            assert child.stdin is not None
            child.stdin.close()
            try:
                child.wait(timeout=10)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait(timeout=5)


def cpu_seconds(pid: int) -> float:
    """User and system CPU of a process so far (Linux: /proc/<pid>/stat, all its threads)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run(args: argparse.Namespace, double_cpu: Callable[[], float]) -> int:
    detector = ChangeDetector(FrameHasher())
    with Controller.connect(resolve(SERIAL)) as controller:
        started = time.monotonic()
        stream = controller.stream(args.width, queue=64)
        first = stream.next(5.0)
        if first is None:
            print("no first frame", file=sys.stderr)
            return 1
        print(f"first frame {first.width}x{first.height} after {(time.monotonic() - started) * 1000:.1f} ms")
        arrivals: list[float] = []
        changes = 0
        end = time.monotonic() + args.seconds
        begin_received = stream.received
        begin_dropped = stream.dropped
        window_start = time.monotonic()
        cpu_start = time.process_time()
        double_start = double_cpu()
        while time.monotonic() < end:
            frame = stream.next(1.0)
            if frame is None:
                continue
            arrivals.append(frame.received_at)
            changes += detector.changed(frame)
        elapsed = time.monotonic() - window_start
        cpu = time.process_time() - cpu_start
        double = double_cpu() - double_start
        received = stream.received - begin_received
        dropped = stream.dropped - begin_dropped
        overflowed = stream.overflowed
        stream.close()
    gaps = [(b - a) * 1000 for a, b in zip(arrivals, arrivals[1:], strict=False)]
    fps = len(arrivals) / elapsed
    print(f"{len(arrivals)} frames hashed in {elapsed:.2f} s: {fps:.1f} frames/s ({changes} changes detected), "
          f"display rate {'every frame' if args.rate == 0 else f'{args.rate:g} Hz'}, load {os.getloadavg()[0]:.2f}")
    if gaps:
        ordered = sorted(gaps)
        print(
            f"inter-arrival p50 {statistics.median(ordered):.2f} ms, p95 {ordered[int(0.95 * (len(ordered) - 1))]:.2f} "
            "ms, "
            f"max {ordered[-1]:.2f} ms"
        )
    print(f"received {received}, dropped by the double (seq gaps) {dropped}, reader overflow {overflowed}")
    client_ms = cpu * 1000 / max(1, len(arrivals))
    print(f"client CPU {client_ms:.2f} ms per frame (receive, decode, hash; the double's process excluded)")
    print(f"double CPU {double * 1000 / max(1, len(arrivals)):.2f} ms per frame "
          f"({'it reduces every frame' if args.scale_in_double else 'frames drawn at the stream size'})")
    if args.rate == 0 and args.width == 540:
        print(f"{fps:.1f} frames/s ({'meets' if fps >= TARGET_FPS else 'MISSES'} the target of at least {TARGET_FPS}); "
              f"client CPU {client_ms:.2f} ms a frame ({'meets' if client_ms <= TARGET_CLIENT_CPU_MS else 'MISSES'} "
              f"the target of at most {TARGET_CLIENT_CPU_MS:g})")
    else:
        print(f"{fps:.1f} frames/s (the targets apply to --rate 0 --width 540)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
