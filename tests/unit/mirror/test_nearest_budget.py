"""The nearest candidates of a failed query are bounded: full likeness (difflib) only until the
budget has passed on the clock, the cheap likeness for every node after it. The clock is injected:
each look at it moves it on, so the bound is counted, not timed."""

from __future__ import annotations

from pytest_mobile_agent.mirror.replica import Replica, View
from pytest_mobile_agent.mirror.selectors import LIKENESS_CHARS, Ranking, Selector, nearest
from pytest_mobile_agent.session.backends import ReadReason
from pytest_mobile_agent.session.tree import parse_snapshot
from tests.support.mirror_fakes import node, tree, window

MS = 0.001


def cells(count: int, text: str = "Cell {}") -> View:
    nodes = [node(1, None, 0), *(node(k + 2, 1, 1, text=text.format(k + 1), cls="android.widget.TextView",
                                       bounds=(0, k, 100, k + 10)) for k in range(count))]
    raw = {"windows": [window(12, tree(*nodes))], "node_count": len(nodes), "truncated": False,
           "idle": {"waited_ms": 0, "idle": True}, "seq": 0,
           "display": {"width": 1080, "height": 2400, "density": 420, "rotation": 0}}
    replica = Replica()
    replica.apply(parse_snapshot(raw, scale=2.625, reason=ReadReason.POLL, read_at=0.0))
    assert replica.view is not None
    return replica.view


class Ticking:
    """A clock that moves on `step` seconds each time it is read."""

    def __init__(self, step: float) -> None:
        self.now = 0.0
        self.step = step
        self.reads = 0

    def __call__(self) -> float:
        self.reads += 1
        self.now += self.step
        return self.now


def test_past_the_budget_the_remaining_nodes_are_scored_cheaply() -> None:
    view = cells(400)
    ranking = Ranking()
    found = nearest(Selector(text="Cell 399x"), view, budget=25 * MS, clock=Ticking(1 * MS), ranking=ranking)
    # the start, then one look per node scored at full likeness until 25 ms had passed
    assert ranking.full == 24
    assert ranking.cheap == 401 - 24
    assert found  # the cheap likeness still names the nodes that hold the text
    assert all("likeness" in line for line in found)


def test_within_the_budget_every_node_is_scored_at_full_likeness() -> None:
    view = cells(400)
    ranking = Ranking()
    found = nearest(Selector(text="Cell 399x"), view, budget=25 * MS, clock=Ticking(0.0), ranking=ranking)
    assert (ranking.full, ranking.cheap) == (401, 0)
    assert found[0].startswith("@") and '"Cell 399"' in found[0]


def test_a_node_holding_the_text_outranks_one_scored_cheaply_after_the_budget() -> None:
    view = cells(100)
    ranking = Ranking()
    found = nearest(Selector(text="Cell 1"), view, budget=3 * MS, clock=Ticking(1 * MS), ranking=ranking)
    assert ranking.cheap > 0
    assert '"Cell 1"' in found[0]  # its full likeness is 1.0, before any cheap 0.8


def test_a_long_text_on_either_side_is_compared_by_its_start_only() -> None:
    long = "x" * 50_000
    view = cells(5, text=long + " {}")
    ranking = Ranking()
    found = nearest(Selector(text=long), view, clock=Ticking(0.0), ranking=ranking)
    assert ranking.full == 6
    assert len(found) == 5 and all("likeness 1.00" in line for line in found)  # the capped starts agree
    assert LIKENESS_CHARS < 50_000


def test_state_only_selectors_count_the_criteria_met() -> None:
    view = cells(3)
    found = nearest(Selector(clickable=True, class_name="TextView"), view, clock=Ticking(1.0))
    assert len(found) == 3 and all("likeness 0.50" in line for line in found)
