"""Selector queries beside a plain Python loop testing the same criteria over the same nodes.

    python3 benches/bench_selectors.py [--rounds 15]

For each query, at 573 nodes (the fixture's Big tab) and at 5,000 (the same shape grown, see
trees.py): `Selector.of(criteria).select(view)` (or `.first(view)` for a find), the selector built
and its compiled matcher looked up per query as `screen.find_all` does, beside a loop written by
hand over `view.entries` (run with PYTHONPATH at an older tree to time its selectors, whose find
was the whole query's first match). The two take turns, `--rounds` samples each; the ratio is of the medians.
Targets: find(text=) at most 1.5 times the loop, every other query at most 2 times.

Then, for the queries a window's text index answers (mirror/text_index.py), the first and the
second query on a view just changed, each timed right after its view's apply, beside the loop on
another replica's view of the same snapshot, timed right after that one's apply: after every
window was read again (no index yet; the second query builds the windows'), and after only the
status bar's clock ticked (the app's window kept, with its index).
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from collections.abc import Callable
from typing import Any

from timing import interleaved, median, stamp
from trees import big_tab, evicted

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


INDEXED = ("find(text=", "find_all(text=)", "find_all(text_contains=)", "find_all(class, clickable, text_contains)")
"""The queries a text index answers (mirror/text_index.py), timed again on views just changed."""


def after_changes(size: int, rounds: int, queries: list[tuple[str, dict[str, Any], bool, Callable[[View], object],
                                                             float]]) -> None:
    """The first and second query on a view just changed, beside the loop on the same view: after
    the app's window was read again (its entries new: no index yet), and after only the status
    bar's clock ticked (the app's window kept, with the index the previous generation built)."""
    base = big_tab(size)
    reread = [base, evicted(base)]

    def read_again(k: int) -> dict[str, Any]:
        return reread[k % 2]

    def ticked(minute: int) -> dict[str, Any]:
        status = base["windows"][0]
        nodes = [{**n, "text": f"12:{minute % 60:02}"} if n["text"] else n for n in status["nodes"]]
        return {**base, "windows": [{**status, "nodes": nodes}, *base["windows"][1:]]}

    print(f"\n{size} nodes, the first queries after a change, {rounds * 5} changes each, medians per query")
    for label, criteria, first, loop, _target in queries:
        if not label.startswith(INDEXED):
            continue
        selector = Selector.of(criteria)
        query: Callable[[View], object] = selector.first if first else selector.select
        for change, snapshots in (("app re-read", read_again), ("clock ticked", ticked)):
            ours, theirs = Replica(), Replica()  # each view timed right after its own apply: both cold alike
            for replica in (ours, theirs):
                apply(replica, snapshots(0))
            query(replica_view(ours))
            query(replica_view(ours))  # the app's index built: a tick carries it
            times: dict[str, list[float]] = {"1st": [], "2nd": [], "loop": []}
            for k in range(1, rounds * 5 + 1):
                view = apply(ours, snapshots(k))
                for name in ("1st", "2nd"):
                    started = time.perf_counter()
                    query(view)
                    times[name].append(time.perf_counter() - started)
                view = apply(theirs, snapshots(k))
                started = time.perf_counter()
                loop(view)
                times["loop"].append(time.perf_counter() - started)
            ours1, ours2, plain = (median(times[name]) for name in ("1st", "2nd", "loop"))
            print(f"  {label:44} {change:12}  1st {ours1 * 1e6:7.1f} µs ({ours1 / plain:4.2f}x)  "
                  f"2nd {ours2 * 1e6:7.1f} µs ({ours2 / plain:4.2f}x)  loop {plain * 1e6:7.1f} µs")


def apply(replica: Replica, raw: dict[str, Any]) -> View:
    replica.apply(parse_snapshot(raw, scale=2.625, reason=ReadReason.POLL, read_at=0.0))
    return replica_view(replica)


def replica_view(replica: Replica) -> View:
    assert replica.view is not None
    return replica.view


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
        cells = [t for e in view.entries if (t := e.node.text) is not None and t.startswith("Cell ")]
        last = max(cells, key=lambda t: int(t.split()[1]))
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
            def plain(loop: Callable[[View], object] = loop, view: View = view) -> object:
                return loop(view)
            samples = interleaved({"ours": ours, "loop": plain}, args.rounds, number)
            a, b = median(samples["ours"]), median(samples["loop"])
            ratio = a / b
            verdict = "met" if ratio <= target else "MISSED"
            missed += ratio > target
            print(f"  {label:44} ours {a * 1e6:8.1f} µs  loop {b * 1e6:8.1f} µs  ratio {ratio:4.2f}  "
                  f"(target <= {target}: {verdict})")
        after_changes(size, args.rounds, queries(last))
    print(f"\n{'all targets met' if not missed else f'{missed} targets missed'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
