"""A Compose screen torn down under the agent double's read, and a snapshot that does not wait for a
slow read (docs/protocol.md section 6; the seed's `teardown::` tests of the Java agent).

The double's read lets go of the UI model's lock every `READ_SLICE` nodes; these tests act there,
on the reading thread, through `Tree.between_slices` (`core.tree`), as the Java tests hook the fake window.
"""

from __future__ import annotations

import threading
from typing import Any

import pytest

from pytest_mobile_agent.virtual.agent import AgentCore
from pytest_mobile_agent.virtual.kernel.streams import Kernel
from pytest_mobile_agent.virtual.ui import EmulatorUi
from pytest_mobile_agent.virtual.ui.clock import ManualClock
from pytest_mobile_agent.virtual.ui.fixture import COMPOSE_MS, LAUNCH_MS
from pytest_mobile_agent.virtual.ui.node import Window
from tests.support.agent_host import Host, make_core


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def ui(clock: ManualClock) -> EmulatorUi:
    """The fixture on its Big tab, freshly composed: the app window's next read is a cold one."""
    model = EmulatorUi(clock=clock)
    model.start_app({"tab": "Big"})
    clock.advance(LAUNCH_MS + COMPOSE_MS["Big"] + 1)
    model.advance()
    return model




def app_window(ui: EmulatorUi) -> Window:
    window = ui.app.window
    assert window is not None
    return window


def tap_tab(ui: EmulatorUi, clock: ManualClock, tab: str) -> None:
    """A tap on a tab (the old screen goes at once), then the model time its screen takes."""
    node = app_window(ui).by_res(f"tab_{tab.lower()}")
    assert node is not None
    x, y = (node.bounds[0] + node.bounds[2]) // 2, (node.bounds[1] + node.bounds[3]) // 2
    ui.touch(x, y, True)
    ui.touch(x, y, False)
    clock.advance(COMPOSE_MS[tab] + 1)
    ui.advance()


def res_of(snapshot: dict[str, Any], window_id: int) -> set[str]:
    window = next(w for w in snapshot["windows"] if w["id"] == window_id)
    return {n["res"] for n in window["nodes"] if n["res"]}


def test_a_compose_reread_that_meets_a_torn_down_subtree_reads_the_new_screen_and_reports_the_change(
        ui: EmulatorUi, clock: ManualClock, core: AgentCore, host: Host, monkeypatch: pytest.MonkeyPatch) -> None:
    app = app_window(ui)
    between = core.tree.between_slices
    switched: list[bool] = []

    def tab_switch_under_the_read() -> None:
        between()
        if not switched:  # the reader stands inside the Big grid: the app switches to Login
            switched.append(True)
            tap_tab(ui, clock, "Login")

    monkeypatch.setattr(core.tree, "between_slices", tab_switch_under_the_read)
    snapshot = host.result("snapshot", {"evict_event_less": True})
    assert switched
    seen = res_of(snapshot, app.id)
    assert "username" in seen and "login_button" in seen  # the new screen is read
    assert not any(r.startswith(("cell_", "big_")) for r in seen)  # the old one is not served
    window = next(w for w in snapshot["windows"] if w["id"] == app.id)
    assert window["node_count"] == len(window["nodes"]) == app.node_count()
    changed = [e for e in host.events if e["name"] == "window_changed" and e["data"]["window"] == app.id]
    assert [e["data"] for e in changed] == [{"window": app.id, "nodes": [], "kinds": ["structure"]}]
    assert changed[0]["seq"] > snapshot["seq"]  # sent after the read began, before its response
    again = host.result("snapshot")  # the cache holds the new screen
    assert res_of(again, app.id) == seen and not [e for e in host.events if e not in changed]


def test_a_snapshot_asked_for_during_a_compose_reread_is_answered_without_waiting_for_it(
        ui: EmulatorUi, core: AgentCore, host: Host, monkeypatch: pytest.MonkeyPatch) -> None:
    stuck, release = threading.Event(), threading.Event()
    slow_reader: list[threading.Thread] = []
    between = core.tree.between_slices

    def the_first_reader_stalls() -> None:
        between()
        if not slow_reader:
            slow_reader.append(threading.current_thread())
        if threading.current_thread() is slow_reader[0] and not release.is_set():
            stuck.set()
            release.wait(5.0)

    monkeypatch.setattr(core.tree, "between_slices", the_first_reader_stalls)
    host.send({"type": "request", "id": 100, "method": "snapshot", "deadline_ms": 10_000,
               "params": {"evict_event_less": True}})
    assert stuck.wait(3.0), "the first read never stood inside the Compose window"
    second = host.result("snapshot", {"evict_event_less": True})  # id 1, answered first
    assert not release.is_set()
    assert second["node_count"] == 573 and "cell_500" in res_of(second, app_window(ui).id)
    release.set()
    late = host.recv_kind("response")
    assert late["id"] == 100 and late["result"]["node_count"] == 573


def test_a_window_torn_down_under_every_read_is_busy(
        ui: EmulatorUi, clock: ManualClock, core: AgentCore, host: Host, monkeypatch: pytest.MonkeyPatch) -> None:
    between = core.tree.between_slices

    def the_big_tab_again() -> None:  # each read meets a new Big screen composed under it
        between()
        tap_tab(ui, clock, "Big")

    monkeypatch.setattr(core.tree, "between_slices", the_big_tab_again)
    error = host.call("snapshot", {"evict_event_less": True})["error"]
    assert error["code"] == "busy" and error["retryable"] is True
    assert "kept changing" in error["message"]
    monkeypatch.setattr(core.tree, "between_slices", between)
    assert host.result("snapshot")["node_count"] == 573  # and the next read is served


def test_a_read_overtaken_by_its_windows_change_event_is_not_kept_in_the_cache(
        clock: ManualClock, monkeypatch: pytest.MonkeyPatch) -> None:
    """The keyboard sends change events: one that comes while the keyboard is being read drops the
    cache, so the read it overtook is served once and the next snapshot reads the keyboard again."""
    from pytest_mobile_agent.virtual.ui import node as nodes

    monkeypatch.setattr(nodes, "READ_SLICE", 32)  # one pause in the keyboard's 44 nodes, after its shift key
    model = EmulatorUi(clock=clock)
    model.start_app({"tab": "Login"})
    clock.advance(LAUNCH_MS + COMPOSE_MS["Login"] + 1)
    model.advance()
    field = app_window(model).by_res("username")
    assert field is not None
    model.focus(field)
    shift = next(n for n in model.keyboard.nodes() if n.desc == "shift")
    core, _ = make_core(model)
    host = Host(core, Kernel())
    try:
        host.handshake()
        between = core.tree.between_slices
        pressed: list[bool] = []

        def shift_pressed_under_the_read() -> None:
            between()
            if not pressed:
                pressed.append(True)
                x, y = (shift.bounds[0] + shift.bounds[2]) // 2, (shift.bounds[1] + shift.bounds[3]) // 2
                model.touch(x, y, True)
                model.touch(x, y, False)

        monkeypatch.setattr(core.tree, "between_slices", shift_pressed_under_the_read)

        def shift_checked(snapshot: dict[str, Any]) -> bool:
            return bool(next(n for w in snapshot["windows"] for n in w["nodes"] if n["id"] == shift.uid)["checked"])

        assert not shift_checked(host.result("snapshot")) and pressed  # read before the press
        assert shift.checked
        assert shift_checked(host.result("snapshot"))  # not the overtaken read from the cache
    finally:
        host.close()
        core.stop()
