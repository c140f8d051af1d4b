"""The Java agent on the host JVM (HostMain, the fake platform), driven by the host's Connection.

Measures, p50/p95/max over --runs each, request sent to result decoded:
- launch: `java ... HostMain serve` to its ready line (a cold JVM; --launches times);
- tap: a tap acknowledged (the seed's target: accepted within 50 ms);
- warm: a snapshot of the Big tab (575 nodes) served from the agent's window caches;
- cold: the same with `evict: [12]` (the Compose window's 573 nodes read and serialised again);
- capped: a cold read under `max_nodes: 100` (every node still read and counted).

    python3 benches/bench_java_agent.py --runs 200

The fake platform answers in microseconds, so this isolates the agent's own cost (protocol, tree
reading, caches, JSON) from the device's; on a device the accessibility calls dominate.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from timing import timed

from pytest_mobile_agent.agent.connection import Connection

ROOT = Path(__file__).resolve().parent.parent


def report(name: str, samples: list[float]) -> None:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
    print(f"  {name:<8} p50 {statistics.median(ordered):8.2f} ms  p95 {p95:8.2f} ms  max {ordered[-1]:8.2f} ms"
          f"  (n={len(ordered)})")




def start(classpath: str, token: str) -> tuple[subprocess.Popen[bytes], dict[str, object], float]:
    began = time.perf_counter()
    process = subprocess.Popen(
        ["java", "-cp", classpath, "dev.mobileagent.agent.HostMain", "serve", "--port", "0", "--idle-exit-ms", "30000"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        env=dict(os.environ, MOBILE_AGENT_TOKEN=token),
    )
    assert process.stdout is not None
    line = process.stdout.readline().decode()
    took = (time.perf_counter() - began) * 1000
    if not line.startswith("MOBILE_AGENT_READY "):
        process.kill()
        raise SystemExit(f"HostMain did not start: {line!r}")
    return process, json.loads(line.split(" ", 1)[1]), took


def stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.kill()
    process.wait(timeout=10)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--launches", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        built = subprocess.run(["bash", str(ROOT / "agent-android" / "build.sh"), "--host", tmp],
                               capture_output=True, timeout=300, check=True)
        classpath = built.stdout.decode().strip().splitlines()[-1]
        token = secrets.token_hex(16)
        launches = []
        for _ in range(args.launches):
            process, _ready, took = start(classpath, token)
            launches.append(took)
            stop(process)
        process, ready, _took = start(classpath, token)
        try:
            stream = socket.create_connection(("127.0.0.1", int(str(ready["port"]))), timeout=5.0)
            with Connection.open(stream, token, timeout=5.0, name="java-agent") as conn:
                print(f"Java agent on the host JVM, {sys.platform}, load {os.getloadavg()[0]:.2f}")
                tap = timed(lambda: conn.request("tap", {"x": 5, "y": 2300}, timeout=5.0), args.runs)
                conn.request("tap", {"x": 900, "y": 270}, timeout=5.0)  # the Big tab
                first = conn.request("snapshot", {"idle_timeout_ms": 500}, timeout=10.0)
                assert first["node_count"] == 575, first["node_count"]
                for _ in range(20):  # warm the JIT before timing
                    conn.request("snapshot", {"evict": [12]}, timeout=10.0)
                warm = timed(lambda: conn.request("snapshot", {}, timeout=10.0), args.runs)
                cold = timed(lambda: conn.request("snapshot", {"evict": [12]}, timeout=10.0), args.runs)
                capped = timed(lambda: conn.request("snapshot", {"evict": [12], "max_nodes": 100}, timeout=10.0),
                               args.runs)
        finally:
            stop(process)
    report("launch", launches)
    report("tap", tap)
    report("warm", warm)
    report("cold", cold)
    report("capped", capped)
    tap_p50 = statistics.median(tap)
    print(f"tap p50 {tap_p50:.2f} ms against the 50 ms target: {'met' if tap_p50 <= 50 else 'NOT met'}")


if __name__ == "__main__":
    main()
