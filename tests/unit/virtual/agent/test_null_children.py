"""Children the platform does not give, on the agent double: AccessibilityNodeInfo.getChild(i)
returns null for a provider's or a WebView's node it cannot fetch, an embedded hierarchy, a binder
timeout, or a child gone from a parent that is still there (a list item scrolled away under the
read). The double, as the Java agent's TreeReader and uiautomator's dumper
(AccessibilityNodeInfoDumper.dumpNodeRec), asks once more, then leaves the child out and counts it
in the window's `skipped_children` (docs/protocol.md); only a child whose parent is gone too means
the subtree was torn down and the window is read again from its root."""

from __future__ import annotations

import pytest

from pytest_mobile_agent.virtual.agent import AgentCore
from pytest_mobile_agent.virtual.ui import EmulatorUi
from pytest_mobile_agent.virtual.ui import node as nodes
from pytest_mobile_agent.virtual.ui.node import Node
from tests.support.agent_host import Host, on_tab


def by_res(ui: EmulatorUi, res: str) -> Node:
    return next(n for w in ui.windows() for n in w.nodes() if n.res == res)


def app(snapshot: dict) -> dict:
    return next(w for w in snapshot["windows"] if w["title"] == "Compose fixture")


def test_a_child_the_platform_never_gives_is_left_out_and_counted(ui: EmulatorUi, host: Host) -> None:
    on_tab(ui, "Login")
    with ui.lock:
        by_res(ui, "invite_code").null_reads = -1
    window = app(host.result("snapshot"))
    assert window["skipped_children"] == 1
    res = [n["res"] for n in window["nodes"]]
    assert "invite_code" not in res and "username" in res and "login_button" in res
    ids = {n["id"] for n in window["nodes"]}
    assert all(c in ids for n in window["nodes"] for c in n["children"]), "parents name only the children read"
    assert window["node_count"] == len(window["nodes"])


def test_a_child_missing_once_is_asked_for_again(ui: EmulatorUi, host: Host) -> None:
    on_tab(ui, "Login")
    with ui.lock:
        by_res(ui, "invite_code").null_reads = 1
    window = app(host.result("snapshot"))
    assert window["skipped_children"] == 0
    assert "invite_code" in [n["res"] for n in window["nodes"]]


def test_a_read_that_left_children_out_is_read_again_next_time(ui: EmulatorUi, host: Host) -> None:
    on_tab(ui, "Login")
    with ui.lock:
        by_res(ui, "invite_code").null_reads = 2  # the first read's two calls give null
    assert app(host.result("snapshot"))["skipped_children"] == 1
    window = app(host.result("snapshot"))  # Compose sends no event, yet the window is read again
    assert window["skipped_children"] == 0
    assert "invite_code" in [n["res"] for n in window["nodes"]]


def test_items_scrolling_away_under_every_read_are_skipped_and_the_snapshot_is_answered(
        ui: EmulatorUi, core: AgentCore, host: Host, monkeypatch: pytest.MonkeyPatch) -> None:
    """A list that moves under every slice of the read: the agent used to start again from the
    root at each vanished child and answer `busy` after four reads."""
    on_tab(ui, "List")
    scroller = ui.app.list
    assert scroller is not None
    between = core.tree.between_slices

    def the_list_scrolls_on() -> None:
        scroller.scroll_to(scroller.offset() + 6 * scroller.item_height)  # past the items still to read
        between()

    monkeypatch.setattr(nodes, "READ_SLICE", 8)  # the read lets the app run every 8 nodes, in the list too
    monkeypatch.setattr(core.tree, "between_slices", the_list_scrolls_on)
    response = host.call("snapshot", {"evict_event_less": True})
    assert "result" in response, response
    window = app(response["result"])
    assert window["skipped_children"] >= 1
    assert window["node_count"] == len(window["nodes"])
