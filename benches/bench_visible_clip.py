"""What the replica's visibility correction costs (issue 41, item 1): a node the agent calls visible
whose bounds lie outside its window on the display is held as not visible, one test per node and a
rebuilt node for each such one.

    python3 benches/bench_visible_clip.py [NODES]     # default 5000

On `trees.big_tab(NODES)` (the Big tab grown to NODES nodes, nearly all of them below the display and
reported visible: the worst case, every node rebuilt), the replica's entries of each window made 40
times with no region (no correction) and with the display's, taking turns; p50 of each.
"""

from __future__ import annotations

import statistics
import sys
import time

from trees import big_tab

from pytest_mobile_agent.mirror.replica import Replica
from pytest_mobile_agent.session.backends import ReadReason
from pytest_mobile_agent.session.tree import parse_snapshot


def main() -> int:
    nodes = int(sys.argv[1]) if len(sys.argv) > 1 else 5000
    snapshot = parse_snapshot(big_tab(nodes), scale=2.625, reason=ReadReason.POLL, read_at=0.0)
    region = (0, 0, snapshot.display.width, snapshot.display.height)
    plain: list[float] = []
    clipped: list[float] = []
    for _ in range(40):
        for times, bounds in ((plain, None), (clipped, region)):
            replica = Replica()
            started = time.perf_counter()
            for window in snapshot.windows:
                replica._window_entries(window, bounds)
            times.append(time.perf_counter() - started)
    hidden = sum(1 for w in snapshot.windows for n in w.nodes if n.visible and n.bounds[1] >= region[3])
    print(f"{nodes} nodes ({hidden} below the display, reported visible): entries without the correction "
          f"{statistics.median(plain) * 1000:.2f} ms, with it {statistics.median(clipped) * 1000:.2f} ms (p50 of 40)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
