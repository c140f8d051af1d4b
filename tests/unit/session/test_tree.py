"""session::tree::tests: the snapshot request, the idle bound, window metadata and the scale."""

from __future__ import annotations

import contextlib
import json
import re
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_mobile_agent.errors import ProtocolError
from pytest_mobile_agent.session.backends import ReadReason
from pytest_mobile_agent.session.tree import (
    AgentTree,
    TreeOptions,
    decode_snapshot,
    parse_snapshot,
    scale_from_wm_density,
)
from tests.support.session_fakes import (
    FakeConnection,
    keyboard_window,
    node,
    snapshot,
    tabs_window,
    window,
)
from tests.unit.mirror import trees as mirror_trees


def tree_on(conn: FakeConnection, **kw: object) -> AgentTree:
    return AgentTree(conn, lambda: 2.625, capabilities=conn.hello.capabilities, **kw)  # type: ignore[arg-type]


def test_reads_after_an_attach_action_or_resync_wait_for_idle_and_others_do_not() -> None:
    conn = FakeConnection()
    conn.always("snapshot", snapshot(tabs_window()))
    tree = tree_on(conn, options=TreeOptions(max_nodes=300, max_depth=12))
    for reason in ReadReason:
        tree.read(reason)
    sent = conn.sent("snapshot")
    by_reason = dict(zip(ReadReason, sent, strict=True))
    for reason in (ReadReason.ATTACH, ReadReason.ACTION, ReadReason.RESYNC):
        assert by_reason[reason]["idle_timeout_ms"] == 500
        assert by_reason[reason]["idle_quiet_ms"] == 200
    for reason in (ReadReason.EVENT, ReadReason.POLL, ReadReason.FRAME, ReadReason.ANIMATION, ReadReason.MOVED):
        assert by_reason[reason]["idle_timeout_ms"] == 0
        assert "idle_quiet_ms" not in by_reason[reason]
    # polls and the read after frames went still exist for windows that may change unannounced: they
    # evict those; the reads while frames keep changing do not (a cold Compose read per animation frame)
    assert [r for r in ReadReason if by_reason[r].get("evict_event_less")] == [ReadReason.POLL, ReadReason.FRAME]
    # the node and depth caps reach every request; every read is one request with a 10 s deadline
    assert all(p["max_nodes"] == 300 and p["max_depth"] == 12 for p in sent)
    assert conn.timeouts("snapshot") == [10.0] * len(ReadReason)
    assert tree.reads == len(ReadReason)


def test_a_read_or_probe_takes_the_callers_time_left_when_it_is_shorter() -> None:
    """Issue 19 item 5: reads and probes take min(their deadline, the wait's time left + grace)."""
    conn = FakeConnection()
    conn.always("snapshot", snapshot(tabs_window()))
    conn.always("bounds", {"nodes": []})
    tree = tree_on(conn)
    tree.read(ReadReason.POLL, timeout=0.7)
    tree.read(ReadReason.POLL, timeout=30.0)
    tree.read(ReadReason.POLL)
    tree.read(ReadReason.POLL, timeout=0.0)
    assert conn.timeouts("snapshot") == [0.7, 10.0, 10.0, 0.001]
    tree.probe([1, 2], timeout=0.2)
    tree.probe([1, 2], timeout=5.0)
    assert conn.timeouts("bounds") == [0.2, 0.5]


def test_event_less_windows_come_from_the_agents_metadata() -> None:
    conn = FakeConnection()
    alert = window(40, [node(200, text="Discard?")], events=False, modal=True)
    prompt = window(41, [node(300, text="Allow")], events=True, modal=True, type="system",
                    owner="com.google.android.permissioncontroller")
    old = window(42, [node(400)], metadata=False)
    conn.always("snapshot", snapshot(alert, prompt, tabs_window(events=False), old))
    snap = tree_on(conn).read(ReadReason.ATTACH)
    meta = {w.id: w.metadata for w in snap.windows}
    assert not meta[40].sends_change_events and meta[40].modal and meta[40].owner is None
    assert meta[41].sends_change_events and meta[41].owner == "com.google.android.permissioncontroller"
    assert not meta[12].sends_change_events
    # an agent that sends no metadata (before task 3.6) is taken as sending events, as before
    assert meta[42].sends_change_events and not meta[42].modal


def test_the_scale_is_the_density_over_160_with_the_override_first() -> None:
    assert scale_from_wm_density("Physical density: 420\n") == 2.625
    assert scale_from_wm_density("Physical density: 420\nOverride density: 480\n") == 3.0
    assert scale_from_wm_density("Override density: 320\r\nPhysical density: 420\r\n") == 2.0
    with pytest.raises(ProtocolError, match="no density"):
        scale_from_wm_density("/system/bin/sh: wm: not found")


@given(st.text(max_size=200))
def test_any_wm_output_gives_a_scale_or_a_protocol_error(text: str) -> None:
    try:
        scale = scale_from_wm_density(text)
    except ProtocolError:
        return
    assert scale > 0


@given(st.integers(1, 2000), st.one_of(st.none(), st.integers(1, 2000)))
def test_the_override_wins_whatever_the_densities(physical: int, override: int | None) -> None:
    text = f"Physical density: {physical}\n" + (f"Override density: {override}\n" if override else "")
    assert scale_from_wm_density(text) == (override or physical) / 160


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)


@given(st.dictionaries(st.sampled_from(["windows", "node_count", "idle", "display", "seq", "x"]), _json))
def test_a_malformed_snapshot_is_a_protocol_error_never_a_crash(result: dict[str, object]) -> None:
    with contextlib.suppress(ProtocolError):
        parse_snapshot(result, scale=2.625, reason=ReadReason.POLL, read_at=0.0)


def test_a_node_without_a_required_key_is_a_protocol_error_naming_it() -> None:
    broken = node(1)
    del broken["bounds"]
    with pytest.raises(ProtocolError, match="bounds"):
        parse_snapshot(snapshot(window(1, [broken])), scale=1.0, reason=ReadReason.POLL, read_at=0.0)


def test_the_snapshot_keeps_the_node_count_apart_from_the_nodes_serialized() -> None:
    conn = FakeConnection()
    conn.always("snapshot", snapshot(tabs_window(), keyboard_window(), node_count=5000, truncated=True))
    snap = tree_on(conn).read(ReadReason.ATTACH)
    assert snap.node_count == 5000 and snap.truncated
    assert sum(len(w.nodes) for w in snap.windows) == 5


@given(mirror_trees.snapshots())
def test_a_snapshot_decoded_from_its_bytes_is_the_one_parsed_from_its_dict(raw: dict[str, Any]) -> None:
    """Issue 40 item 1: the read's typed decode (bytes straight into nodes) and the parse of the
    same result's dicts give equal snapshots, every node's every field."""
    data = json.dumps(raw).encode()
    typed = decode_snapshot(data, scale=2.625, reason=ReadReason.POLL, read_at=1.0)
    assert typed == parse_snapshot(raw, scale=2.625, reason=ReadReason.POLL, read_at=1.0)
    assert [n.id for w in typed.windows for n in w.nodes] == [n["id"] for w in raw["windows"] for n in w["nodes"]]


@pytest.mark.parametrize("key, value, where", [
    ("depth", "3", "$.windows[0].nodes[1].depth"),
    ("bounds", [0, 0, 10], "$.windows[0].nodes[1].bounds"),
    ("clickable", 1, "$.windows[0].nodes[1].clickable"),
    ("children", None, "$.windows[0].nodes[1].children"),
])
def test_a_malformed_node_names_its_key_and_where_it_is(key: str, value: object, where: str) -> None:
    nodes = [node(1, children=[2]), node(2, parent=1, depth=1)]
    nodes[1][key] = value
    data = json.dumps(snapshot(window(1, nodes))).encode()
    with pytest.raises(ProtocolError, match=re.escape(where)) as caught:
        decode_snapshot(data, scale=1.0, reason=ReadReason.POLL, read_at=0.0)
    assert str(caught.value).startswith("malformed snapshot from the agent: ")


def test_a_read_asks_for_the_results_bytes_and_keeps_what_a_newer_agent_adds_out() -> None:
    conn = FakeConnection()
    shown = snapshot(window(1, [node(1)]))
    shown["windows"][0]["nodes"][0]["future_key"] = {"anything": [1, 2]}
    conn.always("snapshot", shown)
    snap = tree_on(conn).read(ReadReason.POLL)
    assert [n.id for n in snap.windows[0].nodes] == [1]
