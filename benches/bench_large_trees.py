"""Decoding and applying snapshots from 100 to 5,000 nodes: how the cost grows, and memory per node.

    python3 benches/bench_large_trees.py [--rounds 15] [--sizes 100,573,2000,5000]

For each size, a snapshot in the Big tab's shape (trees.py) as the agent sends it, timed in turns:

* decode: `decode_snapshot` of the result's bytes straight into Nodes and Windows (msgspec, typed);
* apply, evicted: `Replica.apply` of the same screen with every node id new (the agent evicted its
  cache: every window rebuilt, every node compared);
* apply, cached: `Replica.apply` of the same screen read again from the agent's cache (equal windows
  keep their entries);
* json.loads, and the whole read: the floor, stdlib `json.loads` of the response frame's payload
  alone (no node made), beside what a read costs the host once the frame is in: the established
  connection's frame decoder (the result kept as bytes), `decode_snapshot` and `Replica.apply`, the
  two screens taking turns (timed apart from the three above, the collector running as in a real
  read: the garbage of a read is part of its cost).

Then the least-squares line through the sizes for decode plus apply (evicted), the target (the whole
read at most 15 ms at 5,000 nodes) and the memory per node (tracemalloc: the decoded snapshot, then
the replica's view of it). With orjson installed, the candidates for the decoder on the largest
frame are printed side by side: the figures behind docs/performance.md's choice of msgspec.
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import json
import sys
import tracemalloc
from typing import Any

from timing import interleaved, median, stamp
from trees import big_tab, evicted

from pytest_mobile_agent.agent import protocol
from pytest_mobile_agent.mirror import Replica
from pytest_mobile_agent.session.backends import ReadReason
from pytest_mobile_agent.session.tree import decode_snapshot, parse_snapshot

TARGET_MS = 15.0


def parse(result: dict[str, Any]) -> Any:
    """A result already in dicts, into values (the scripted agents' path)."""
    return parse_snapshot(result, scale=2.625, reason=ReadReason.POLL, read_at=0.0)


def typed(data: bytes) -> Any:
    """A result's bytes, straight into values (the read's path)."""
    return decode_snapshot(data, scale=2.625, reason=ReadReason.POLL, read_at=0.0)


def result_bytes(frame: bytes) -> bytes:
    """What an established connection hands the tree: the response's result, undecoded."""
    decoder = protocol.FrameDecoder(unique_keys=False, lazy_results=True)
    (message,) = decoder.feed(frame)
    result = message["result"]
    assert isinstance(result, protocol.RawResult)
    return result.data


def memory_per_node(result: dict[str, Any]) -> tuple[float, float]:
    """Bytes per node held by the decoded snapshot, and by the replica's view on top of it."""
    data = protocol.encode_json(result)
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    snapshot = typed(data)
    parsed = tracemalloc.get_traced_memory()[0]
    replica = Replica()
    replica.apply(snapshot)
    applied = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    nodes = snapshot.node_count
    return (parsed - before) / nodes, (applied - parsed) / nodes


def decoders(frame: bytes, rounds: int) -> list[str]:
    """The candidates on one frame, each to values the replica takes (a Snapshot), and into dicts alone."""
    payload = frame[4:]
    data = result_bytes(frame)
    fns: dict[str, Any] = {
        "json.loads (dicts)": lambda: json.loads(payload),
        "json + parse": lambda: parse(json.loads(payload)["result"]),
    }
    if importlib.util.find_spec("orjson"):
        import orjson
        fns["orjson (dicts)"] = lambda: orjson.loads(payload)
        fns["orjson + parse"] = lambda: parse(orjson.loads(payload)["result"])
    import msgspec
    generic = msgspec.json.Decoder()
    fns["msgspec (dicts)"] = lambda: generic.decode(payload)
    fns["msgspec typed"] = lambda: (result_bytes(frame), typed(data))
    samples = interleaved(fns, rounds, 3)
    return [f"  {name:20} {median(s) * 1000:7.2f} ms" for name, s in samples.items()]


def measure(result: dict[str, Any], rounds: int) -> dict[str, float]:
    """Milliseconds (medians) of each step for one snapshot result."""
    other = evicted(result)
    frames = [protocol.encode({"type": "response", "id": 1, "result": r}) for r in (result, other)]
    payloads = [frame[4:] for frame in frames]
    data = result_bytes(frames[0])
    replica, cached, pipeline = Replica(), Replica(), Replica()
    snapshots = [typed(data), typed(result_bytes(frames[1]))]
    cached.apply(typed(data))
    again = typed(data)
    turn = [0]

    def apply_evicted() -> None:
        turn[0] ^= 1
        replica.apply(snapshots[turn[0]])

    def read() -> None:  # what a read costs the host once the frame is in: decode, parse, apply
        turn[0] ^= 1
        pipeline.apply(typed(result_bytes(frames[turn[0]])))

    def floor() -> None:  # the stdlib's decode alone of the same bytes
        turn[0] ^= 1
        json.loads(payloads[turn[0]])

    number = max(5, 20_000 // result["node_count"])  # calls per sample: the collector's passes amortised
    samples = interleaved({"decode": lambda: typed(data), "apply_evicted": apply_evicted,
                           "apply_cached": lambda: cached.apply(again)}, rounds, number)
    samples.update(interleaved({"json.loads": floor, "read": read}, rounds, number))
    return {name: median(s) * 1000 for name, s in samples.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--sizes", default="100,573,2000,5000")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    print(f"{stamp()}, "
          f"Python {sys.version.split()[0]}, {args.rounds} rounds, medians")
    print(f"{'nodes':>6} {'frame KB':>9} {'decode':>9} {'apply ev.':>10} {'apply c.':>9} {'dec.+apply':>12} "
          f"{'µs/node':>8} {'json.loads':>11} {'whole read':>11} {'B/node decoded':>15} {'B/node replica':>15}")
    points: list[tuple[int, float]] = []
    reads: dict[int, tuple[float, float]] = {}
    frame = b""
    for size in sizes:
        result = big_tab(size)
        frame = protocol.encode({"type": "response", "id": 1, "result": result})
        ms = measure(result, args.rounds)
        both = ms["decode"] + ms["apply_evicted"]
        points.append((size, both))
        parsed, applied = memory_per_node(result)
        print(f"{size:6} {len(frame) / 1024:9.0f} {ms['decode']:7.2f}ms {ms['apply_evicted']:8.2f}ms "
              f"{ms['apply_cached']:7.2f}ms {both:10.2f}ms {both * 1000 / size:8.2f} {ms['json.loads']:9.2f}ms "
              f"{ms['read']:9.2f}ms {parsed:15.0f} {applied:15.0f}")
        reads[size] = (ms["read"], ms["json.loads"])
    n = len(points)
    mean_x = sum(x for x, _ in points) / n
    mean_y = sum(y for _, y in points) / n
    slope = sum((x - mean_x) * (y - mean_y) for x, y in points) / max(1e-9, sum((x - mean_x) ** 2 for x, _ in points))
    intercept = mean_y - slope * mean_x
    worst = max(abs(y - (intercept + slope * x)) for x, y in points)
    print(f"\ndecode + apply (evicted) = {intercept:.3f} ms + {slope * 1000:.3f} µs x nodes "
          f"(largest distance of a size from the line {worst:.2f} ms)")
    if 5000 in reads:
        at, floor = reads[5000]
        print(f"the whole read at 5,000 nodes: {at:.2f} ms beside json.loads alone {floor:.2f} ms "
              f"({'meets' if at <= TARGET_MS else 'MISSES'} the target of at most {TARGET_MS:g} ms)")
    print(f"\ndecoders, the {len(frame) // 1024} KB frame of {sizes[-1]} nodes:")
    print("\n".join(decoders(frame, args.rounds)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
