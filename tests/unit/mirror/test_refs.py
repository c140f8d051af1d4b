"""Properties of the replica's refs over arbitrary trees."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from pytest_mobile_agent.mirror import Replica
from pytest_mobile_agent.session.backends import ReadReason
from pytest_mobile_agent.session.tree import parse_snapshot
from tests.support.mirror_fakes import node, window

# a tree as a list of parent positions: node k's parent is an earlier node (pre-order), node 0 the root
shapes = st.lists(st.integers(min_value=0, max_value=10_000), min_size=0, max_size=60).map(
    lambda picks: [None] + [pick % (k + 1) for k, pick in enumerate(picks)]
)


def build(parents: list[int | None], first_id: int, texts: list[str]) -> dict:
    # lay the nodes out in pre-order: children in creation order under their parent
    children: dict[int, list[int]] = {k: [] for k in range(len(parents))}
    for k, parent in enumerate(parents):
        if parent is not None:
            children[parent].append(k)
    order: list[tuple[int, int]] = []
    stack = [(0, 0)]
    while stack:
        k, depth = stack.pop()
        order.append((k, depth))
        stack.extend((c, depth + 1) for c in reversed(children[k]))
    nodes = [
        node(first_id + k, None if parents[k] is None else first_id + parents[k], depth,
             text=texts[k % len(texts)], children=tuple(first_id + c for c in children[k]),
             cls="android.widget.TextView" if k % 3 else "android.view.View")
        for k, depth in order
    ]
    return {"windows": [window(12, nodes)], "node_count": len(nodes)}


@given(shapes, st.integers(min_value=1, max_value=10_000), st.lists(st.text(max_size=4), min_size=1, max_size=5))
def test_refs_survive_a_renumbering_and_stay_unique(parents: list[int | None], offset: int, texts: list[str]) -> None:
    replica = Replica()
    first = parse_snapshot(build(parents, 1, texts), scale=1.0, reason=ReadReason.POLL, read_at=0.0)
    again = parse_snapshot(build(parents, 1 + offset * 100, texts), scale=1.0, reason=ReadReason.POLL, read_at=0.0)
    assert replica.apply(first)
    view = replica.view
    assert view is not None
    refs = [e.ref for e in view.entries]
    assert len(set(refs)) == len(refs) == len(parents)
    assert not replica.apply(again)  # the same screen renumbered is no change a test can see
    assert replica.view is not None
    assert [e.ref for e in replica.view.entries] == refs
    # every entry's subtree is exactly its descendants by parent refs
    for entry in replica.view.entries:
        below = {e.ref for e in replica.view.subtree(entry)}
        by_parent = {e.ref for e in replica.view.entries if entry.ref in {a.ref for a in replica.view.ancestors(e)}}
        assert below == by_parent
