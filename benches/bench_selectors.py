"""Selector queries beside a plain Python loop testing the same criteria over the same nodes.

    python3 benches/bench_selectors.py [--rounds 15]

For each query, at 573 nodes (the fixture's Big tab) and at 5,000 (the same shape grown, see
trees.py): `Selector.of(criteria).select(view)` (or `.first(view)` for a find), the selector built
and its compiled matcher looked up per query as `screen.find_all` does, beside a loop written by
hand over `view.entries` (run with PYTHONPATH at an older tree to time its selectors, whose find
was the whole query's first match). The two take turns, `--rounds` samples each; the ratio is of the medians.
Targets: find(text=) at most 1.5 times the loop, every other query at most 2 times.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable
from typing import Any

from timing import interleaved, median, stamp
from trees import big_tab

from pytest_mobile_agent.mirror import Replica
from pytest_mobile_agent.mirror.replica import Entry, View
from pytest_mobile_agent.mirror.selectors import Selector
from pytest_mobile_agent.session.backends import ReadReason
from pytest_mobile_agent.session.tree import parse_snapshot

CELL_99 = re.compile(r"Cell \d*99$").search


def queries(last_cell: str) -> list[tuple[str, dict[str, Any], bool, Callable[[View], object], float]]:
    """(label, criteria, first only, the loop, target ratio)."""
    def find_text(view: View) -> Entry | None:
        for e in view.entries:
            if e.node.text == last_cell:
                return e
        return None

    return [
        (f"find(text={last_cell!r})", {"text": last_cell}, True, find_text, 1.5),
        (
            "find_all(text=)",
            {"text": last_cell},
            False,
            lambda v: [e for e in v.entries if e.node.text == last_cell],
            2.0,
        ),
        (
            "find_all(text_contains=)",
            {"text_contains": "99"},
            False,
            lambda v: [e for e in v.entries if (t := e.node.text) is not None and "99" in t],
            2.0,
        ),
        (
            "find_all(text_matches=)",
            {"text_matches": r"Cell \d*99$"},
            False,
            lambda v: [e for e in v.entries if (t := e.node.text) is not None and CELL_99(t) is not None],
            2.0,
        ),
        (
            "find_all(id=)",
            {"id": "cell_7"},
            False,
            lambda v: [
                e for e in v.entries if (r := e.node.res) is not None and (r == "cell_7" or r.endswith(":id/cell_7"))
            ],
            2.0,
        ),
        ("find_all(desc=)", {"desc": "Home"}, False, lambda v: [e for e in v.entries if e.node.desc == "Home"], 2.0),
        (
            "find_all(class_name=)",
            {"class_name": "TextView"},
            False,
            lambda v: [e for e in v.entries if (c := e.node.class_name) == "TextView" or c.endswith(".TextView")],
            2.0,
        ),
        (
            "find_all(clickable=True)",
            {"clickable": True},
            False,
            lambda v: [e for e in v.entries if e.node.clickable],
            2.0,
        ),
        (
            "find_all(enabled=False)",
            {"enabled": False},
            False,
            lambda v: [e for e in v.entries if not e.node.enabled],
            2.0,
        ),
        (
            "find_all(class, clickable, text_contains)",
            {"class_name": "TextView", "clickable": True, "text_contains": "99"},
            False,
            lambda v: [
                e
                for e in v.entries
                for n in (e.node,)
                if n.text is not None
                and "99" in n.text
                and (n.class_name == "TextView" or n.class_name.endswith(".TextView"))
                and n.clickable
            ],
            2.0,
        ),
        (
            "find_all(id, text, clickable, package)",
            {"id": "cell_7", "text": "Cell 7", "clickable": True, "package": "dev.mobileagent.fixture"},
            False,
            lambda v: [
                e
                for e in v.entries
                for n in (e.node,)
                if n.text == "Cell 7"
                and n.res is not None
                and (n.res == "cell_7" or n.res.endswith(":id/cell_7"))
                and n.package == "dev.mobileagent.fixture"
                and n.clickable
            ],
            2.0,
        ),
    ]


def view_of(nodes: int) -> View:
    replica = Replica()
    replica.apply(parse_snapshot(big_tab(nodes), scale=2.625, reason=ReadReason.POLL, read_at=0.0))
    assert replica.view is not None
    return replica.view


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--sizes", default="573,5000")
    args = parser.parse_args()
    print(f"{stamp()}, "
          f"{args.rounds} rounds, medians per query")
    missed = 0
    for size in (int(s) for s in args.sizes.split(",")):
        view = view_of(size)
        last = max((e.node.text for e in view.entries if (e.node.text or "").startswith("Cell ")),
                   key=lambda t: int(t.split()[1]))
        print(f"\n{view.node_count} nodes")
        for label, criteria, first, loop, target in queries(last):
            def ours(view: View = view, criteria: dict[str, Any] = criteria, first: bool = first) -> object:
                selector = Selector.of(criteria)
                if not first:
                    return selector.select(view)
                if hasattr(selector, "first"):
                    return selector.first(view)
                found = selector.select(view)  # before issue 17 a find was the whole query's first
                return found[0] if found else None
            expected = loop(view)
            assert ours() == expected, label  # the same matches, in the same order
            number = max(1, int(20_000 / size)) if not first else max(1, int(40_000 / size))
            samples = interleaved({"ours": ours, "loop": lambda loop=loop, view=view: loop(view)}, args.rounds, number)
            a, b = median(samples["ours"]), median(samples["loop"])
            ratio = a / b
            verdict = "met" if ratio <= target else "MISSED"
            missed += ratio > target
            print(f"  {label:44} ours {a * 1e6:8.1f} µs  loop {b * 1e6:8.1f} µs  ratio {ratio:4.2f}  "
                  f"(target <= {target}: {verdict})")
    print(f"\n{'all targets met' if not missed else f'{missed} targets missed'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
