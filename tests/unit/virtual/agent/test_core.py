"""The agent double's protocol server over the device's streams: docs/protocol.md, frame by frame."""

from __future__ import annotations

import base64
import io
import struct
import threading
import time

import pytest
from PIL import Image

from pytest_mobile_agent.virtual.agent import AgentCore, server
from pytest_mobile_agent.virtual.kernel.streams import Kernel
from pytest_mobile_agent.virtual.ui import EmulatorUi
from tests.support.agent_host import DISPLAY, SOCKET, TOKEN, Host, make_core, on_tab
from tests.support.polling import wait_until

WINDOW_KEYS = {"id", "type", "title", "package", "layer", "focused", "active", "bounds", "sends_change_events",
               "owner", "modal", "node_count", "skipped_children", "nodes"}
NODE_KEYS = {"id", "parent", "depth", "class", "text", "desc", "res", "hint", "package", "bounds", "clickable",
             "long_clickable", "focusable", "focused", "editable", "checkable", "checked", "enabled", "selected",
             "scrollable", "visible", "password", "scroll", "children"}


@pytest.fixture
def kernel() -> Kernel:
    return Kernel()






def node(snapshot: dict, res: str) -> dict:
    return next(n for w in snapshot["windows"] for n in w["nodes"] if n["res"] == res)


def center(n: dict) -> dict:
    left, top, right, bottom = n["bounds"]
    return {"x": (left + right) // 2, "y": (top + bottom) // 2}


# --- handshake ----------------------------------------------------------------------------------


def test_a_right_token_gets_the_hello_with_the_agents_identity(core: AgentCore, kernel: Kernel) -> None:
    h = Host(core, kernel)
    h.send({"type": "auth", "token": TOKEN})
    assert h.recv() == {"type": "hello", "agent": "mobile-agent-android", "version": "0.1.0",
                        "build": "7fec0cb05341", "protocols": [1],
                        "capabilities": ["events", "bounds", "window_metadata", "text_clipboard", "multi_touch",
                                         "a11y_fields"],
                        "pid": 2973, "socket": SOCKET}


def test_a_wrong_token_learns_nothing_but_unauthorized(core: AgentCore, kernel: Kernel) -> None:
    h = Host(core, kernel)
    h.send({"type": "auth", "token": "f" * 32})
    assert h.recv() == {"type": "refused", "code": "unauthorized", "message": "unauthorized"}
    assert h.recv() is None
    assert not core.stopped


def test_a_peer_of_another_app_is_refused_and_logged_and_the_agent_keeps_serving(kernel: Kernel) -> None:
    core, lines = make_core()
    try:
        app = Host(core, kernel, peer_uid=10123)
        assert app.recv() == {"type": "refused", "code": "peer_not_allowed", "message": "peer not allowed"}
        assert app.recv() is None
        assert lines == ["refused peer uid 10123"]
        assert Host(core, kernel).handshake()["type"] == "hello"
    finally:
        core.stop()


def test_a_root_peer_reaches_the_token_check_while_the_agent_runs_as_the_shell(kernel: Kernel) -> None:
    """Under `adb root` adbd's connection is root's, and the host starts the agent with `su 2000`
    (issue 37, item 1): the token is the check."""
    core, lines = make_core()
    try:
        wrong = Host(core, kernel, peer_uid=0)
        wrong.send({"type": "auth", "token": "0" * 32})
        assert wrong.recv() == {"type": "refused", "code": "unauthorized", "message": "unauthorized"}
        assert Host(core, kernel, peer_uid=0).handshake()["type"] == "hello"
        assert lines == []
    finally:
        core.stop()


def test_a_frame_before_auth_is_a_protocol_error_that_closes_the_connection(core: AgentCore, kernel: Kernel) -> None:
    h = Host(core, kernel)
    h.send({"type": "request", "id": 1, "method": "snapshot", "deadline_ms": 100, "params": {}})
    assert h.recv() == {"type": "closing", "reason": "protocol_error"}
    assert h.recv() is None
    bad = Host(core, kernel)
    bad.send_raw(struct.pack(">I", 0))
    assert bad.recv() == {"type": "closing", "reason": "protocol_error"}
    not_json = Host(core, kernel)
    not_json.send_raw(struct.pack(">I", 3) + b"[1]")
    assert not_json.recv() == {"type": "closing", "reason": "protocol_error"}
    assert Host(core, kernel).handshake()["type"] == "hello"  # still serving


def test_a_version_mismatch_refusal_makes_the_agent_exit(core: AgentCore, kernel: Kernel) -> None:
    h = Host(core, kernel)
    h.send({"type": "auth", "token": TOKEN})
    assert h.recv_kind("hello")["protocols"] == [1]
    h.send({"type": "refuse", "code": "version_mismatch", "message": "host speaks protocols [2]"})
    assert h.recv() is None
    assert wait_until(lambda: core.stopped)
    assert core.exit_status == 0


def test_a_newer_connection_replaces_the_current_one(core: AgentCore, kernel: Kernel, host: Host) -> None:
    newer = Host(core, kernel)
    newer.handshake()
    assert host.recv_kind("closing") == {"type": "closing", "reason": "replaced"}
    assert host.recv() is None
    assert newer.result("bounds", {"ids": []}) == {"nodes": []}


def test_a_connection_with_a_wrong_token_does_not_replace_the_current_one(
        core: AgentCore, kernel: Kernel, host: Host) -> None:
    intruder = Host(core, kernel)
    intruder.send({"type": "auth", "token": "0" * 32})
    assert intruder.recv()["code"] == "unauthorized"
    assert host.result("bounds", {"ids": []}) == {"nodes": []}


# --- snapshot -----------------------------------------------------------------------------------


def test_a_snapshot_of_the_big_tab_has_the_protocols_shapes_and_573_nodes(ui: EmulatorUi, host: Host) -> None:
    on_tab(ui, "Big")
    snap = host.result("snapshot")
    assert set(snap) >= {"windows", "node_count", "truncated", "idle", "seq", "display"}
    assert snap["node_count"] == 573 and snap["truncated"] is False
    assert snap["display"] == DISPLAY
    assert snap["idle"] == {"waited_ms": 0, "idle": snap["idle"]["idle"]}
    assert [w["title"] for w in snap["windows"]] == ["StatusBar", "NavigationBar0", "Compose fixture"]
    ids = [n["id"] for w in snap["windows"] for n in w["nodes"]]
    assert len(ids) == len(set(ids)) == 573  # unique across windows
    for w in snap["windows"]:
        assert set(w) == WINDOW_KEYS
        assert w["node_count"] == len(w["nodes"])
        # every key of NODE, and of the optional accessibility fields only the tabs' role (a11y_fields)
        assert all(set(n) == NODE_KEYS | ({"role"} if (n["res"] or "").startswith("tab_") else set())
                   for n in w["nodes"])
        assert w["nodes"][0]["parent"] is None
    app = snap["windows"][2]
    assert (app["type"], app["package"], app["sends_change_events"], app["owner"], app["modal"],
            app["focused"], app["bounds"]) == ("application", "dev.mobileagent.fixture", False, None, False, True,
                                               [0, 0, 1080, 2400])
    assert snap["windows"][0]["owner"] == "com.android.systemui"


def test_a_lower_node_cap_truncates_and_still_reports_the_full_count(ui: EmulatorUi, host: Host) -> None:
    on_tab(ui, "Big")
    snap = host.result("snapshot", {"max_nodes": 100})
    assert snap["node_count"] == 573 and snap["truncated"] is True
    serialized = [n for w in snap["windows"] for n in w["nodes"]]
    assert len(serialized) == 100
    present = {n["id"] for n in serialized}
    assert all(c in present for n in serialized for c in n["children"])
    assert snap["windows"][2]["node_count"] == 563
    shallow = host.result("snapshot", {"max_depth": 2})
    assert shallow["truncated"] is True and shallow["node_count"] == 573
    assert max(n["depth"] for w in shallow["windows"] for n in w["nodes"]) == 2


def test_scroll_semantics_describe_the_list(ui: EmulatorUi, host: Host) -> None:
    on_tab(ui, "List")
    lst = node(host.result("snapshot"), "list")
    assert lst["scrollable"] is True
    assert lst["scroll"] == {"horizontal": False, "vertical": True, "can_back": False, "can_forward": True,
                             "items": 100, "first": 0, "last": 13}


def test_a_compose_window_is_served_from_the_cache_until_evicted(ui: EmulatorUi, host: Host) -> None:
    on_tab(ui, "Big")
    snap = host.result("snapshot")
    cell = node(snap, "cell_5")
    x, y = center(cell).values()
    ui.touch(x, y, True)  # input the agent did not inject (the controller's)
    ui.touch(x, y, False)
    assert node(host.result("snapshot"), "cell_5")["selected"] is False  # stale, as on a device
    assert node(host.result("snapshot", {"evict": [snap["windows"][2]["id"]]}), "cell_5")["selected"] is True
    ui.touch(x, y, True)
    ui.touch(x, y, False)
    assert node(host.result("snapshot", {"evict_event_less": True}), "cell_5")["selected"] is False


def test_the_agents_own_tap_reads_the_compose_window_again(ui: EmulatorUi, host: Host) -> None:
    on_tab(ui, "Big")
    cell = node(host.result("snapshot"), "cell_9")
    assert host.result("tap", {**center(cell), "hold_ms": 0}) == {"accepted": True}
    assert node(host.result("snapshot"), "cell_9")["selected"] is True


def test_a_snapshot_after_a_tab_tap_waits_for_idle_and_shows_the_new_screen(ui: EmulatorUi, host: Host) -> None:
    on_tab(ui, "Login")
    tab = node(host.result("snapshot"), "tab_big")
    host.result("tap", center(tab))
    snap = host.result("snapshot", {"idle_timeout_ms": 500, "idle_quiet_ms": 200})
    # idle within its timeout; how long past its quiet period the wait took is the host's scheduling
    # (836 ms once at load 10), which a unit test does not bound
    assert snap["idle"]["idle"] is True and snap["idle"]["waited_ms"] >= 150
    assert snap["node_count"] == 573


def test_bounds_answers_the_nodes_it_knows_and_leaves_the_others_out(ui: EmulatorUi, host: Host) -> None:
    on_tab(ui, "List")
    item = node(host.result("snapshot"), "item_1")
    assert host.result("bounds", {"ids": [item["id"], 999_999]}) == {
        "nodes": [{"id": item["id"], "bounds": item["bounds"]}]
    }
    assert host.call("bounds", {"ids": "x"})["error"]["code"] == "invalid_params"


# --- events -------------------------------------------------------------------------------------


def test_events_carry_a_seq_from_1_and_only_windows_that_send_them_change(ui: EmulatorUi, host: Host) -> None:
    on_tab(ui, "Login")
    field = node(host.result("snapshot"), "username")
    host.result("tap", center(field))
    assert wait_until(lambda: bool(host.recv_kind_events()))
    shift = next(n for n in ui.keyboard.nodes() if n.desc == "shift")
    x, y = (shift.bounds[0] + shift.bounds[2]) // 2, (shift.bounds[1] + shift.bounds[3]) // 2
    host.result("tap", {"x": x, "y": y})
    deadline = time.monotonic() + 2
    # The tap on the field may still be sending the app window's own change (its text): wait for the keyboard's.
    def keyboard_changes() -> list[dict]:
        return [e for e in host.events if e["name"] == "window_changed" and e["data"]["window"] == ui.keyboard.id]

    while not keyboard_changes() and time.monotonic() < deadline:
        host.recv_kind_events()
    seqs = [e["seq"] for e in host.events]
    assert seqs == list(range(1, len(seqs) + 1))
    assert any(e["name"] == "windows_changed" and ui.keyboard.id in e["data"]["windows"] for e in host.events)
    changed = keyboard_changes()[0]
    assert changed["data"] == {"window": ui.keyboard.id, "nodes": [shift.uid], "kinds": ["state"]}
    app_id = next(w.id for w in ui.windows() if w.package == "dev.mobileagent.fixture")
    assert all(e["data"].get("window") != app_id for e in host.events)  # Compose sends none
    assert host.result("snapshot")["seq"] == seqs[-1]


def test_resync_drops_the_caches_and_the_next_event_follows_its_seq(ui: EmulatorUi, host: Host) -> None:
    on_tab(ui, "Login")
    host.result("tap", center(node(host.result("snapshot"), "username")))
    time.sleep(0.05)
    seq = host.result("resync")["seq"]
    assert seq >= 1
    host.events.clear()  # what came before the resync's answer; everything after follows its seq
    host.result("key", {"code": 4})  # back: the keyboard goes away
    # Keys are applied asynchronously, as ASYNC injection returns before the app handles the key: the
    # event may come before the key's answer (kept in host.events) or after it.
    event = host.events[0] if host.events else host.recv_kind("event")
    assert event["seq"] == seq + 1 and event["name"] == "windows_changed"


def test_pings_come_after_a_second_of_silence_and_pings_are_answered(host: Host) -> None:
    host.send({"type": "ping", "nonce": 42})
    assert host.recv_kind("pong") == {"type": "pong", "nonce": 42}
    ping = host.recv(2.5)
    assert ping is not None and ping["type"] == "ping" and isinstance(ping["nonce"], int)



def test_the_agent_pings_while_the_apps_ui_thread_is_busy(ui: EmulatorUi, host: Host) -> None:
    """Issue 27's starved host: the double's pinger ran the UI model's timers first, so an app busy for
    3 s (its lock held) kept the agent silent and the host took it for dead. The Java agent pings on
    a schedule of its own (server/Server.java, tickOnce)."""
    host.send({"type": "ping", "nonce": 7})
    assert host.recv_kind("pong")["nonce"] == 7  # the connection is quiet from here on
    held = threading.Event()

    def busy_app() -> None:
        with ui.lock:
            held.set()
            time.sleep(3.0)

    busy = threading.Thread(target=busy_app, daemon=True)
    busy.start()
    held.wait(5.0)
    try:
        ping = host.recv(2.5)
        assert ping is not None and ping["type"] == "ping"
    finally:
        busy.join(5.0)


# --- input --------------------------------------------------------------------------------------


def test_a_swipe_moves_every_8_ms_and_a_resting_release_stops_the_list(ui: EmulatorUi, host: Host) -> None:
    on_tab(ui, "List")
    assert host.result("swipe", {"x1": 540, "y1": 2000, "x2": 540, "y2": 800, "duration_ms": 300, "rest_ms": 60}) \
        == {"accepted": True, "moves": 39}
    rested = node(host.result("snapshot", {"idle_timeout_ms": 500}), "list")["scroll"]["first"]
    assert not ui.flinging  # released at rest: no fling
    assert node(host.result("snapshot", {"evict_event_less": True}), "list")["scroll"]["first"] == rested
    assert host.result("swipe", {"x1": 540, "y1": 2000, "x2": 540, "y2": 800, "duration_ms": 300})["moves"] == 38
    assert ui.flinging and wait_until(lambda: not ui.flinging)
    flung = node(host.result("snapshot", {"evict_event_less": True}), "list")["scroll"]["first"]
    assert flung - rested > 1.5 * rested


def test_a_swipe_longer_than_its_deadline_is_deadline_exceeded(host: Host) -> None:
    error = host.call("swipe", {"x1": 0, "y1": 0, "x2": 10, "y2": 10, "duration_ms": 3000}, deadline_ms=500)["error"]
    assert error == {"code": "deadline_exceeded", "message": error["message"], "retryable": True}


def test_text_names_the_method_it_used(ui: EmulatorUi, host: Host) -> None:
    on_tab(ui, "Login")
    snap = host.result("snapshot")
    username, invite = node(snap, "username"), node(snap, "invite_code")
    assert host.result("text", {"node": username["id"], "text": "héllo 👋", "method": "auto"}) == \
        {"accepted": True, "method": "direct"}
    assert host.result("text", {"node": invite["id"], "text": "Ab 12", "method": "auto"})["method"] == "keys"
    ui.clipboard = "mine"
    assert host.result("text", {"node": invite["id"], "text": "ünï", "method": "auto"})["method"] == "clipboard"
    assert ui.clipboard == "mine"  # restored
    fields = {n["res"]: n["text"] for n in host.result("snapshot", {"evict_event_less": True})["windows"][-1]["nodes"]
              if n["res"] in ("username", "invite_code")}
    assert fields == {"username": "héllo 👋", "invite_code": "Ab 12ünï"}  # keys and pastes insert
    refused = host.call("text", {"node": invite["id"], "text": "x", "method": "direct"})["error"]
    assert refused["code"] == "invalid_params"
    assert host.call("text", {"node": 999_999, "text": "x"})["error"]["code"] == "not_found"
    assert host.result("text", {"node": None, "text": "Zed"}) == {"accepted": True, "method": "keys"}
    assert ui.focused is not None and ui.focused.text == "Ab 12ünïZed"  # the focused field: the invite code


def test_a_host_silent_for_3_s_is_gone(core: AgentCore, host: Host, monkeypatch: pytest.MonkeyPatch) -> None:
    assert server.SILENT_HOST_S == 3.0
    monkeypatch.setattr(server, "SILENT_HOST_S", 0.6)  # the same rule, sooner
    host.send({"type": "ping", "nonce": 1})
    assert host.recv_kind("pong")["nonce"] == 1
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:  # read the agent's pings, answer none of them
        message = host.recv(5)
        if message is None:
            break
    assert time.monotonic() < deadline
    assert wait_until(lambda: not core.connected)


def test_unknown_methods_and_bad_params_are_errors_and_the_connection_stays(host: Host) -> None:
    assert host.call("fly")["error"] == {"code": "unknown_method", "message": "unknown method 'fly'",
                                         "retryable": False}
    assert host.call("tap", {"x": "1", "y": 2})["error"]["code"] == "invalid_params"
    assert host.call("snapshot", {"max_nodes": -1})["error"]["code"] == "invalid_params"
    assert host.call("key", {"code": 3}, deadline_ms=-1)["error"]["code"] == "invalid_params"
    assert host.result("key", {"code": 3, "meta": 0}) == {"accepted": True}


def test_a_screenshot_is_an_upright_png_of_the_display(ui: EmulatorUi, host: Host) -> None:
    on_tab(ui, "Big")
    shot = host.result("screenshot", {"format": "png"})
    assert (shot["format"], shot["width"], shot["height"], shot["rotation"]) == ("png", 1080, 2400, 0)
    image = Image.open(io.BytesIO(base64.b64decode(shot["data"])))
    assert image.size == (1080, 2400) and image.format == "PNG"
    jpeg = host.result("screenshot", {"format": "jpeg", "quality": 50})
    assert Image.open(io.BytesIO(base64.b64decode(jpeg["data"]))).format == "JPEG"
    assert host.call("screenshot", {"format": "gif"})["error"]["code"] == "invalid_params"


def test_shutdown_answers_then_closes_and_stops_the_agent(core: AgentCore, host: Host) -> None:
    assert host.result("shutdown") == {}
    assert host.recv_kind("closing") == {"type": "closing", "reason": "shutdown"}
    assert host.recv() is None
    assert wait_until(lambda: core.stopped) and core.exit_status == 0


def test_a_request_that_runs_out_of_memory_is_answered_and_the_agent_serves_on(
        ui: EmulatorUi, host: Host, monkeypatch: pytest.MonkeyPatch) -> None:
    """Nothing escapes (the Java agent's NothingEscapesTest: RuntimeInit's handler would end the
    process): a screenshot that runs out of memory while encoding is an error response."""
    def out_of_memory(*args: object, **kwargs: object) -> None:
        raise MemoryError("Failed to allocate a 10368016 byte allocation")

    monkeypatch.setattr(ui, "render", out_of_memory)
    error = host.call("screenshot")["error"]
    assert error["code"] in ("screenshot_failed", "internal") and "allocate" in error["message"]
    monkeypatch.undo()
    assert host.result("screenshot")["format"] == "png"
