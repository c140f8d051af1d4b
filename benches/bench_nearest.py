"""A failed wait's message at 5,000 nodes: the nearest candidates and the tree dump, any selector.

    python3 benches/bench_nearest.py [--runs 5] [--nodes 5000]

Times `Mirror._wait_timeout`'s work (`nearest`, rapidfuzz's ratio over every node, plus `dump_view`
at the error's line limit) over the Big tab grown to `--nodes` (trees.py), for selectors whose text
is short, long (1,000 and 50,000 characters), a pattern, an id, or states only, and with the nodes'
texts made long too; and checks the ranking (`Cell 5000` on the 573-node Big tab: `Cell 500`, then
`Cell 50`). Target: each message built within 50 ms (the wait ends within 50 ms of its timeout).
"""

from __future__ import annotations

import argparse
import sys

from timing import percentiles, stamp, timed
from trees import big_tab

from pytest_mobile_agent.mirror import Replica
from pytest_mobile_agent.mirror.dump import dump_view
from pytest_mobile_agent.mirror.mirror import DUMP_LINES_IN_ERRORS
from pytest_mobile_agent.mirror.replica import View
from pytest_mobile_agent.mirror.selectors import Selector, nearest
from pytest_mobile_agent.session.backends import ReadReason
from pytest_mobile_agent.session.tree import parse_snapshot

TARGET_MS = 50.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--nodes", type=int, default=5000)
    args = parser.parse_args()
    print(f"{stamp()}, "
          f"{args.nodes} nodes, {args.runs} runs each")
    result = big_tab(args.nodes)
    long_texts = {**result, "windows": [{**w, "nodes": [{**n, "text": (n["text"] or "") + " lorem ipsum" * 400}
                                                         for n in w["nodes"]]} for w in result["windows"]]}
    cases = [
        ("text='Cell 4999x' (short, no match)", {"text": "Cell 4999x"}, result),
        ("text of 1,000 characters", {"text": "Cell " + "q" * 995}, result),
        ("text of 50,000 characters", {"text": "x" * 50_000}, result),
        ("text_matches=r'Cell \\d+z'", {"text_matches": r"Cell \d+z"}, result),
        ("id='cell_99999'", {"id": "cell_99999"}, result),
        ("states only (clickable, focused)", {"clickable": True, "focused": True}, result),
        ("text='Cell 12x', node texts of 4,400 chars", {"text": "Cell 12x"}, long_texts),
    ]
    missed = 0
    for label, criteria, raw in cases:
        view = _view(raw)
        selector = Selector.of(criteria)

        def message(selector: Selector = selector, view: View = view) -> None:
            nearest(selector, view)
            dump_view(view, max_lines=DUMP_LINES_IN_ERRORS)

        p50, p95, worst = percentiles(timed(message, args.runs))
        missed += worst > TARGET_MS
        print(f"  {label:42} p50 {p50:6.1f} ms  max {worst:6.1f} ms  {'met' if worst <= TARGET_MS else 'MISSED'}")
    ranked = [line.split('"')[1] for line in nearest(Selector(text="Cell 5000"), _view(big_tab(573)))[:2]]
    print(f"  text='Cell 5000' on the 573-node Big tab ranks {ranked}: "
          f"{'right' if ranked == ['Cell 500', 'Cell 50'] else 'WRONG'}")
    print(f"target: every message within {TARGET_MS:g} ms: {'met' if not missed else f'{missed} missed'}")
    return 0


def _view(raw: dict) -> View:
    replica = Replica()
    replica.apply(parse_snapshot(raw, scale=2.625, reason=ReadReason.POLL, read_at=0.0))
    assert replica.view is not None
    return replica.view


if __name__ == "__main__":
    sys.exit(main())
