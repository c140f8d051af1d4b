"""The inspector's unique locator for each element of the Big tab (573 nodes).

    python3 benches/bench_locators.py [--runs 3] [--nodes 573]

Times `unique_locator(view, entry)` for every node of the Big tab's shape (trees.py) at `--nodes`,
each node `--runs` times: the 500 cells (found by their id), and the rest (the bars' texts and
descriptions, the rows that need an ancestor or an index). Target: at most 5 ms per element.
"""

from __future__ import annotations

import argparse
import sys

from timing import percentiles, stamp, timed
from trees import big_tab

from pytest_mobile_agent.mirror import Replica
from pytest_mobile_agent.mirror.unique import unique_locator
from pytest_mobile_agent.session.backends import ReadReason
from pytest_mobile_agent.session.tree import parse_snapshot

TARGET_MS = 5.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--nodes", type=int, default=573)
    args = parser.parse_args()
    replica = Replica()
    replica.apply(parse_snapshot(big_tab(args.nodes), scale=2.625, reason=ReadReason.POLL, read_at=0.0))
    view = replica.view
    assert view is not None
    print(f"{stamp()}, "
          f"{view.node_count} nodes, {args.runs} runs each")
    groups: dict[str, list[float]] = {"cells": [], "other nodes": []}
    for entry in view.entries:
        group = "cells" if (entry.node.res or "").rsplit("/", 1)[-1].startswith("cell_") else "other nodes"
        groups[group].extend(timed(lambda entry=entry: unique_locator(view, entry), args.runs))
    worst = 0.0
    for label, times in groups.items():
        p50, p95, top = percentiles(times)
        worst = max(worst, top)
        print(
            f"  {label:12} {len(times) // args.runs:4} elements  p50 {p50:6.3f} ms  p95 {p95:6.3f} ms  max {top:6.3f} "
            "ms"
        )
    print(f"target: at most {TARGET_MS:g} ms per element: {'met' if worst <= TARGET_MS else 'MISSED'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
