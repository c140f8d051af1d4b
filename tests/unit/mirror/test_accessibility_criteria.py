"""The selectors' accessibility criteria (issue 39): role, state, error, action and important, over the
NODE's a11y_fields as the typed decoder gives them."""

from __future__ import annotations

import pytest

from pytest_mobile_agent.errors import InvalidSelector
from pytest_mobile_agent.mirror.replica import Replica
from pytest_mobile_agent.mirror.selectors import Selector
from pytest_mobile_agent.session.backends import ReadReason
from pytest_mobile_agent.session.tree import parse_snapshot


def node(node_id: int, res: str, **extra: object) -> dict[str, object]:
    return {"id": node_id, "parent": 1 if node_id != 1 else None, "depth": 0 if node_id == 1 else 1,
            "class": "android.view.View", "text": None, "desc": None, "res": res, "hint": None, "package": "p",
            "bounds": [0, node_id * 100, 500, node_id * 100 + 90], "clickable": False, "long_clickable": False,
            "focusable": False, "focused": False, "editable": False, "checkable": False, "checked": False,
            "enabled": True, "selected": False, "scrollable": False, "visible": True, "password": False,
            "scroll": None, "children": [2, 3, 4] if node_id == 1 else [], **extra}


def view():
    snapshot = parse_snapshot({"windows": [{"id": 7, "bounds": [0, 0, 1080, 2400], "nodes": [
        node(1, "root"),
        node(2, "volume", role="slider", state="40 percent", actions=["set_progress", "Reset"],
             range={"type": "percent", "min": 0.0, "max": 100.0, "current": 40.0}, labeled_by=3),
        node(3, "email", error="Required"),
        node(4, "decoration", important=False),
    ]}]}, scale=2.625, reason=ReadReason.POLL, read_at=0.0)
    replica = Replica()
    replica.apply(snapshot)
    assert replica.view is not None
    return replica.view


@pytest.mark.parametrize(("criteria", "found"), [
    ({"role": "slider"}, ["volume"]),
    ({"state": "40 percent"}, ["volume"]),
    ({"error": "Required"}, ["email"]),
    ({"action": "Reset"}, ["volume"]),
    ({"action": "expand"}, []),
    ({"important": False}, ["decoration"]),
    ({"important": True, "role": "slider"}, ["volume"]),
])
def test_each_criterion_matches_the_nodes_with_that_field(criteria: dict[str, object], found: list[str]) -> None:
    assert [e.node.res for e in Selector.of(criteria).select(view())] == found


def test_the_fields_decode_typed_and_default_where_left_out() -> None:
    nodes = {e.node.res: e.node for e in view().entries}
    volume, root = nodes["volume"], nodes["root"]
    assert volume.range_info is not None and (volume.range_info.type, volume.range_info.current) == ("percent", 40.0)
    assert volume.labeled_by == 3 and volume.actions == ("set_progress", "Reset")
    assert (root.role, root.state, root.range_info, root.error, root.actions, root.labeled_by, root.important) == (
        None, None, None, None, (), None, True)


def test_a_flag_criterion_takes_a_bool_and_a_text_one_a_str() -> None:
    with pytest.raises(InvalidSelector, match="important= takes True or False"):
        Selector.of({"important": "no"})
    with pytest.raises(InvalidSelector, match="role= takes a str"):
        Selector.of({"role": 1})
