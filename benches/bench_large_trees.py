"""Parsing and applying snapshots from 100 to 5,000 nodes: how the cost grows, and memory per node.

    python3 benches/bench_large_trees.py [--rounds 15] [--sizes 100,573,2000,5000]

For each size, a snapshot in the Big tab's shape (trees.py) as the agent sends it, timed in turns:

* parse: `parse_snapshot` of the decoded result into Nodes and Windows;
* apply, evicted: `Replica.apply` of the same screen with every node id new (the agent evicted its
  cache: every window rebuilt, every node compared);
* apply, cached: `Replica.apply` of the same screen read again from the agent's cache (equal windows
  keep their entries);
* decode, and the whole read: `protocol.decode` of the response frame (stdlib json), and decode,
  parse and apply in a row, the two screens taking turns (timed apart from the three above: the
  decode's garbage brings the cyclic collector in, which is part of a real read's cost).

Then the least-squares line through the sizes for parse plus apply (evicted), the target (at most
10 ms at 5,000 nodes) and the memory per node (tracemalloc: the parsed snapshot, then the replica's
view of it). With orjson or msgspec installed, their decode of the same frame is printed beside
json's: the figures for docs/performance.md's choice of decoder.
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import sys
import tracemalloc
from typing import Any

from timing import interleaved, median, stamp
from trees import big_tab, evicted

from pytest_mobile_agent.agent import protocol
from pytest_mobile_agent.mirror import Replica
from pytest_mobile_agent.session.backends import ReadReason
from pytest_mobile_agent.session.tree import parse_snapshot

TARGET_MS = 10.0


def parse(result: dict[str, Any]) -> Any:
    return parse_snapshot(result, scale=2.625, reason=ReadReason.POLL, read_at=0.0)


def memory_per_node(result: dict[str, Any]) -> tuple[float, float]:
    """Bytes per node held by the parsed snapshot, and by the replica's view on top of it."""
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    snapshot = parse(result)
    parsed = tracemalloc.get_traced_memory()[0]
    replica = Replica()
    replica.apply(snapshot)
    applied = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    nodes = snapshot.node_count
    return (parsed - before) / nodes, (applied - parsed) / nodes


def decoders(frame: bytes, rounds: int) -> list[str]:
    payload = frame[4:]
    fns: dict[str, Any] = {"json (stdlib)": lambda: protocol.decode(frame)}
    if importlib.util.find_spec("orjson"):
        import orjson
        fns["orjson"] = lambda: orjson.loads(payload)
    if importlib.util.find_spec("msgspec"):
        import msgspec
        decoder = msgspec.json.Decoder()
        fns["msgspec"] = lambda: decoder.decode(payload)
    if len(fns) == 1:
        return ["  (neither orjson nor msgspec installed: json's decode alone)"]
    samples = interleaved(fns, rounds, 3)
    return [f"  {name:16} {median(s) * 1000:7.2f} ms" for name, s in samples.items()]


def measure(result: dict[str, Any], rounds: int) -> dict[str, float]:
    """Milliseconds (medians) of each step for one snapshot result."""
    other = evicted(result)
    frames = [protocol.encode({"type": "response", "id": 1, "result": r}) for r in (result, other)]
    replica, cached, pipeline = Replica(), Replica(), Replica()
    snapshots = [parse(result), parse(other)]
    cached.apply(parse(result))
    again = parse(result)
    turn = [0]

    def apply_evicted() -> None:
        turn[0] ^= 1
        replica.apply(snapshots[turn[0]])

    def read() -> None:  # what a read costs the host once the frame is in: decode, parse, apply
        turn[0] ^= 1
        pipeline.apply(parse(protocol.decode(frames[turn[0]])["result"]))

    number = max(5, 20_000 // result["node_count"])  # calls per sample: the collector's passes amortised
    samples = interleaved({"parse": lambda: parse(result), "apply_evicted": apply_evicted,
                           "apply_cached": lambda: cached.apply(again)}, rounds, number)
    samples.update(interleaved({"decode": lambda: protocol.decode(frames[0]), "read": read}, rounds, number))
    return {name: median(s) * 1000 for name, s in samples.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--sizes", default="100,573,2000,5000")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    print(f"{stamp()}, "
          f"Python {sys.version.split()[0]}, {args.rounds} rounds, medians")
    print(f"{'nodes':>6} {'frame KB':>9} {'parse':>9} {'apply ev.':>10} {'apply c.':>9} {'parse+apply':>12} "
          f"{'µs/node':>8} {'decode':>9} {'whole read':>11} {'B/node parsed':>14} {'B/node replica':>15}")
    points: list[tuple[int, float]] = []
    frame = b""
    for size in sizes:
        result = big_tab(size)
        frame = protocol.encode({"type": "response", "id": 1, "result": result})
        ms = measure(result, args.rounds)
        both = ms["parse"] + ms["apply_evicted"]
        points.append((size, both))
        parsed, applied = memory_per_node(result)
        print(f"{size:6} {len(frame) / 1024:9.0f} {ms['parse']:7.2f}ms {ms['apply_evicted']:8.2f}ms "
              f"{ms['apply_cached']:7.2f}ms {both:10.2f}ms {both * 1000 / size:8.2f} {ms['decode']:7.2f}ms "
              f"{ms['read']:9.2f}ms {parsed:14.0f} {applied:15.0f}")
    n = len(points)
    mean_x = sum(x for x, _ in points) / n
    mean_y = sum(y for _, y in points) / n
    slope = sum((x - mean_x) * (y - mean_y) for x, y in points) / max(1e-9, sum((x - mean_x) ** 2 for x, _ in points))
    intercept = mean_y - slope * mean_x
    worst = max(abs(y - (intercept + slope * x)) for x, y in points)
    print(f"\nparse + apply (evicted) = {intercept:.3f} ms + {slope * 1000:.3f} µs x nodes "
          f"(largest distance of a size from the line {worst:.2f} ms)")
    if 5000 in dict(points):
        at = dict(points)[5000]
        print(
            f"at 5,000 nodes: {at:.2f} ms ({'meets' if at <= TARGET_MS else 'MISSES'} the target of at most "
            f"{TARGET_MS:g} ms)"
        )
    print(f"\ndecoders, the {len(frame) // 1024} KB frame of {sizes[-1]} nodes:")
    print("\n".join(decoders(frame, args.rounds)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
