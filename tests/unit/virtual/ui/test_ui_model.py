"""The UI model of the Compose fixture app, on a manual model clock."""

from __future__ import annotations

import pytest

from pytest_mobile_agent.virtual.ui import EmulatorUi, ManualClock, NodesChanged, WindowsChanged
from pytest_mobile_agent.virtual.ui.fixture import COMPOSE_MS, LAUNCH_MS, PACKAGE, PASSWORD
from pytest_mobile_agent.virtual.ui.node import Node, Window
from pytest_mobile_agent.virtual.ui.system import LAUNCHER_PACKAGE, PERMISSION_CONTROLLER, SYSTEMUI

NODE_KEYS = {"id", "parent", "depth", "class", "text", "desc", "res", "hint", "package", "bounds", "clickable",
             "long_clickable", "focusable", "focused", "editable", "checkable", "checked", "enabled", "selected",
             "scrollable", "visible", "password", "scroll", "children"}


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def ui(clock: ManualClock) -> EmulatorUi:
    return EmulatorUi(clock)


def started(ui: EmulatorUi, clock: ManualClock, tab: str) -> EmulatorUi:
    ui.start_app({"tab": tab})
    clock.advance(LAUNCH_MS + COMPOSE_MS[tab] + 1)
    ui.advance()
    return ui


def app_window(ui: EmulatorUi) -> Window:
    return next(w for w in ui.windows() if w.package == PACKAGE and not w.modal)


def by_res(ui: EmulatorUi, res: str) -> Node:
    for w in ui.windows():
        node = w.by_res(res)
        if node is not None:
            return node
    raise AssertionError(f"no node {res}")


def center(node: Node) -> tuple[int, int]:
    left, top, right, bottom = node.bounds
    return (left + right) // 2, (top + bottom) // 2


def tap(ui: EmulatorUi, node: Node) -> None:
    x, y = center(node)
    ui.touch(x, y, True)
    ui.touch(x, y, False)


def swipe(ui: EmulatorUi, clock: ManualClock, x: int, y1: int, y2: int, duration_ms: int, rest_ms: int = 0) -> None:
    """As the agent swipes: a move every 8 ms, an optional rest, then a pixel on and the lift."""
    steps = max(1, -(-duration_ms // 8))
    ui.touch(x, y1, True)
    y = y1
    for i in range(1, steps + 1):
        clock.advance(8 if i * 8 <= duration_ms else duration_ms - (i - 1) * 8)
        y = round(y1 + (y2 - y1) * i / steps)
        ui.touch(x, y, True)
    if rest_ms:
        clock.advance(rest_ms)
        y += -1 if y2 < y1 else 1
        ui.touch(x, y, True)
    ui.touch(x, y, False)


def test_the_whole_snapshot_of_the_big_tab_is_573_nodes(ui: EmulatorUi, clock: ManualClock) -> None:
    started(ui, clock, "Big")
    counts = {w.title: w.node_count() for w in ui.windows()}
    assert counts == {"StatusBar": 6, "NavigationBar0": 4, "Compose fixture": 563}
    assert sum(counts.values()) == 573
    cells = [n for n in app_window(ui).nodes() if (n.res or "").startswith("cell_")]
    assert len(cells) == 500
    assert [c.text for c in cells[:2]] == ["Cell 1", "Cell 2"]


def test_a_screen_takes_a_short_model_time_to_compose(ui: EmulatorUi, clock: ManualClock) -> None:
    ui.start_app({"tab": "Big"})
    assert app_window(ui).node_count() == 10  # the frame: no screen yet
    clock.advance(LAUNCH_MS + COMPOSE_MS["Big"] - 5)
    assert app_window(ui).node_count() == 10
    clock.advance(10)
    assert app_window(ui).node_count() == 563


def test_a_tab_switch_tears_the_old_screen_down_and_its_nodes_get_new_ids(ui: EmulatorUi, clock: ManualClock) -> None:
    started(ui, clock, "Big")
    first_cell = by_res(ui, "cell_1").uid
    tab_big = by_res(ui, "tab_big").uid
    tap(ui, by_res(ui, "tab_login"))
    assert app_window(ui).by_res("cell_1") is None  # torn down at once
    assert app_window(ui).by_res("username") is None  # not composed yet
    clock.advance(COMPOSE_MS["Login"] + 1)
    assert by_res(ui, "username").text == ""
    tap(ui, by_res(ui, "tab_big"))
    clock.advance(COMPOSE_MS["Big"] + 1)
    assert by_res(ui, "cell_1").uid != first_cell
    assert by_res(ui, "tab_big").uid == tab_big  # the frame stays composed
    assert by_res(ui, "tab_big").selected


def test_node_dicts_carry_every_protocol_key_with_the_tree_links(ui: EmulatorUi, clock: ManualClock) -> None:
    started(ui, clock, "Login")
    read = app_window(ui).read()
    by_id = {n["id"]: n for n in read.nodes}
    # every NODE key; of the optional accessibility fields only the tabs' role (Compose's Role.Tab)
    assert all(set(n) == NODE_KEYS | ({"role"} if (n["res"] or "").startswith("tab_") else set()) for n in read.nodes)
    root = read.nodes[0]
    assert root["parent"] is None and root["depth"] == 0
    for node in read.nodes[1:]:
        parent = by_id[node["parent"]]
        assert node["id"] in parent["children"]
        assert node["depth"] == parent["depth"] + 1
    tab = next(n for n in read.nodes if n["res"] == "tab_login")
    assert tab["bounds"] == [0, 210, 360, 336] and tab["clickable"] and tab["depth"] == 3
    compose_root = by_id[by_id[tab["parent"]]["parent"]]
    assert compose_root["visible"] is False and compose_root["children"]  # kept: visible children


def test_a_windows_dicts_are_cached_until_it_changes(ui: EmulatorUi, clock: ManualClock) -> None:
    started(ui, clock, "Big")
    window = app_window(ui)
    assert window.read() is window.read()
    before = window.read()
    tap(ui, by_res(ui, "cell_7"))
    after = window.read()
    assert after is not before
    assert next(n for n in after.nodes if n["res"] == "cell_7")["selected"] is True


def test_focusing_a_field_brings_up_the_keyboard_window_with_its_keys(ui: EmulatorUi, clock: ManualClock) -> None:
    started(ui, clock, "Login")
    assert [w.type for w in ui.windows()] == ["system", "system", "application"]
    tap(ui, by_res(ui, "username"))
    windows = ui.windows()
    keyboard = next(w for w in windows if w.type == "input_method")
    assert windows.index(keyboard) < windows.index(app_window(ui))  # above the app
    assert keyboard.sends_change_events
    keys = [n for n in keyboard.nodes() if n.clickable]
    assert len(keys) == 43
    assert {"q", "a", "z", "1"} <= {k.text for k in keys}
    assert by_res(ui, "username").focused
    for letter in "hi":
        tap(ui, next(k for k in keys if k.text == letter))
    assert by_res(ui, "username").text == "hi"
    ui.key(4)  # back hides the keyboard, the focus stays
    assert not ui.keyboard_shown and by_res(ui, "username").focused


def test_key_events_type_into_the_focused_field(ui: EmulatorUi, clock: ManualClock) -> None:
    started(ui, clock, "Login")
    tap(ui, by_res(ui, "password"))
    for code, meta in ((36, 1), (33, 0), (62, 0), (8, 1), (67, 0), (9, 0)):
        assert ui.key(code, meta)
    field = by_res(ui, "password")
    assert field.text == "He 2"
    assert field.password and field.shown_text() == "\u2022" * 4


def test_direct_setting_is_refused_by_a_field_that_does_not_take_it_and_paste_uses_the_clipboard(
        ui: EmulatorUi, clock: ManualClock) -> None:
    started(ui, clock, "Login")
    assert ui.set_text(by_res(ui, "username"), "héllo 👋")
    assert by_res(ui, "username").text == "héllo 👋"
    invite = by_res(ui, "invite_code")
    assert not ui.set_text(invite, "X1")
    ui.clipboard = "ünï"
    assert ui.paste(invite) and invite.text == "ünï"


def test_the_login_button_shows_an_in_app_alert_that_is_modal_and_sends_no_change_events(
        ui: EmulatorUi, clock: ManualClock) -> None:
    started(ui, clock, "Login")
    ui.set_text(by_res(ui, "username"), "ada")
    ui.set_text(by_res(ui, "password"), PASSWORD)
    tap(ui, by_res(ui, "login_button"))
    windows = ui.windows()
    alert = windows[2]
    assert (alert.type, alert.package, alert.modal, alert.sends_change_events) == (
        "application", PACKAGE, True, False)
    assert alert.focused and not app_window(ui).focused
    # AccessibilityController reports the alert alone: its touch region, the task, covers the app
    assert [w.title for w in ui.accessibility_windows()] == ["StatusBar", "NavigationBar0", "Signed in"]
    assert by_res(ui, "alert_message").text == "Welcome, ada"
    assert by_res(ui, "login_status").text == "Signed in as ada"
    # a touch outside the modal window reaches nothing behind it
    ui.touch(540, 300, True)
    ui.touch(540, 300, False)
    clock.advance(COMPOSE_MS["Big"] + 1)
    assert by_res(ui, "tab_login").selected
    tap(ui, by_res(ui, "alert_ok"))
    assert all(not w.modal for w in ui.windows())


def test_a_permission_prompt_is_a_modal_window_owned_by_the_permission_controller(
        ui: EmulatorUi, clock: ManualClock) -> None:
    ui.start_app({"tab": "Login", "prompt": "camera"})
    prompt = ui.windows()[2]
    assert (prompt.type, prompt.package, prompt.modal, prompt.sends_change_events) == (
        "application", PERMISSION_CONTROLLER, True, True)
    assert ui.accessibility_windows()[2:] == [prompt], "the app under the prompt is not reported"
    texts = [n.text for n in prompt.nodes() if n.text]
    assert texts[0] == "Allow Compose fixture to take pictures and record video?"
    assert "While using the app" in texts and "Don\u2019t allow" in texts
    tap(ui, by_res(ui, "com.android.permissioncontroller:id/permission_deny_button"))
    assert ui.permission_prompt is None
    assert ui.app.permission_results == {"camera": "denied"}


def test_system_windows_send_change_events_and_compose_windows_do_not(ui: EmulatorUi, clock: ManualClock) -> None:
    home = ui.windows()
    assert [(w.title, w.sends_change_events, w.package) for w in home] == [
        ("StatusBar", True, SYSTEMUI), ("NavigationBar0", True, SYSTEMUI), ("Home", True, LAUNCHER_PACKAGE)]
    started(ui, clock, "List")
    assert app_window(ui).sends_change_events is False


def test_change_notices_name_the_window_nodes_and_kinds(ui: EmulatorUi, clock: ManualClock) -> None:
    started(ui, clock, "Login")
    notices: list[object] = []
    ui.add_listener(notices.append)
    tap(ui, by_res(ui, "username"))
    assert any(isinstance(n, WindowsChanged) and ui.keyboard.id in n.windows for n in notices)
    notices.clear()
    clock.advance(60_000)  # the status bar clock's minute turns
    ui.advance()
    clock_node = ui.status_bar.root.children[0]
    assert NodesChanged(ui.status_bar.id, (clock_node.uid,), ("text",), True) in notices


def test_the_list_scrolls_with_a_drag_and_reports_items_first_and_last(ui: EmulatorUi, clock: ManualClock) -> None:
    started(ui, clock, "List")
    container = by_res(ui, "list")
    scroll = container.scroll
    assert scroll is not None and (scroll.items, scroll.first, scroll.can_back, scroll.can_forward) == (
        100,
        0,
        False,
        True,
    )
    assert scroll.last == 13
    assert [n.text for n in container.children[:2]] == ["Item 1", "Item 2"]
    swipe(ui, clock, 540, 1800, 1200, 300, rest_ms=60)
    scroll = container.scroll
    assert scroll is not None and scroll.first == 3 and scroll.can_back
    assert container.children[0].text == "Item 4"


def test_a_resting_release_stops_where_the_pointer_left_it_and_a_moving_release_flings(
        ui: EmulatorUi, clock: ManualClock) -> None:
    started(ui, clock, "List")
    scroller = ui.app.list
    assert scroller is not None
    slop = ui.geo.touch_slop
    swipe(ui, clock, 540, 2000, 800, 300, rest_ms=60)
    rested = scroller.offset()
    assert rested == pytest.approx(1200 - slop + 1, abs=2)  # the pointer's way less the slop, plus a pixel
    clock.advance(1000)
    ui.advance()
    assert scroller.offset() == rested and not ui.flinging
    scroller.scroll_to(0)
    swipe(ui, clock, 540, 2000, 800, 300)
    assert ui.flinging
    clock.advance(1000)
    ui.advance()
    assert scroller.offset() > 1.8 * rested  # it flew about as far again
    assert not ui.flinging


def test_a_fast_fling_of_the_list_is_still_moving_where_a_600_ms_one_had_stopped(
        ui: EmulatorUi, clock: ManualClock) -> None:
    started(ui, clock, "List")
    scroller = ui.app.list
    assert scroller is not None
    swipe(ui, clock, 540, 2000, 1200, 100)
    assert ui.flinging
    clock.advance(700)
    ui.advance()
    at_700 = scroller.offset()
    clock.advance(100)
    ui.advance()
    assert ui.flinging and scroller.offset() > at_700, "still moving 0.8 s after the release"
    clock.advance(3000)
    ui.advance()
    assert not ui.flinging


def test_tap_hit_testing_lands_on_the_deepest_clickable_node(ui: EmulatorUi, clock: ManualClock) -> None:
    started(ui, clock, "Big")
    cell = by_res(ui, "cell_123")
    window, node = ui.hit(*center(cell))
    assert window is app_window(ui) and node is cell
    assert ui.hit(250, 50)[0] is ui.status_bar  # the status bar lies above the app
    tap(ui, cell)
    assert cell.selected
    ui.touch(250, 50, True)
    ui.touch(250, 50, False)
    assert app_window(ui).node_count() == 563


def test_a_long_press_selects_a_list_item_and_is_no_tap(ui: EmulatorUi, clock: ManualClock) -> None:
    started(ui, clock, "List")
    item = by_res(ui, "item_2")
    x, y = center(item)
    ui.touch(x, y, True)
    clock.advance(600)
    ui.touch(x, y, False)
    assert item.selected  # toggled once, by the long press alone


def test_force_stop_removes_the_apps_windows_and_shows_the_launcher(ui: EmulatorUi, clock: ManualClock) -> None:
    started(ui, clock, "Login")
    tap(ui, by_res(ui, "username"))
    ui.stop_app()
    assert [w.title for w in ui.windows()] == ["StatusBar", "NavigationBar0", "Home"]
    assert ui.foreground() is None
    tap(ui, next(n for n in ui.launcher.nodes() if n.text == "Compose fixture"))
    assert ui.foreground() == PACKAGE


def test_rendering_has_the_display_dimensions_and_a_clock_that_changes_every_second(
        ui: EmulatorUi, clock: ManualClock) -> None:
    started(ui, clock, "Big")
    full = ui.render()
    assert full.size == (1080, 2400) and full.mode == "RGB"
    assert ui.render(540, 1200).size == (540, 1200)
    assert ui.render(540).size == (540, 1200)
    cell = by_res(ui, "cell_1")
    assert full.getpixel((cell.bounds[0] + 3, cell.bounds[1] + 3)) != full.getpixel((5, 300))
    clock.advance(1000)
    later = ui.render()
    top = (0, 0, 1080, 84)
    assert later.crop(top).tobytes() != full.crop(top).tobytes()
    assert later.crop((0, 84, 1080, 2400)).tobytes() == full.crop((0, 84, 1080, 2400)).tobytes()


def test_a_modal_window_dims_what_lies_under_it(ui: EmulatorUi, clock: ManualClock) -> None:
    started(ui, clock, "Login")
    before = ui.render().getpixel((5, 400))
    ui.app.show_alert("Hi", "there")
    after = ui.render().getpixel((5, 400))
    assert isinstance(before, tuple) and isinstance(after, tuple)
    assert sum(after) < sum(before)


def test_the_settings_app_is_a_view_window_that_sends_change_events(ui: EmulatorUi, clock: ManualClock) -> None:
    notices: list[object] = []
    ui.add_listener(notices.append)
    tap(ui, next(n for n in ui.launcher.nodes() if n.text == "Settings"))
    window = ui.windows()[2]
    assert (window.package, window.type, window.sends_change_events) == (
        "com.android.settings", "application", True)
    assert ui.foreground() == "com.android.settings"
    switch = next(n for n in window.nodes() if n.checkable)
    tap(ui, switch)
    assert not switch.checked  # Wi-Fi was on
    assert NodesChanged(window.id, (switch.uid,), ("state",), True) in notices
    started(ui, clock, "Login")  # the fixture comes on top of it
    assert ui.foreground() == PACKAGE
    ui.key(4)  # back finishes the fixture's activity: Settings is in front again
    assert ui.foreground() == "com.android.settings"
    ui.key(4)
    assert ui.foreground() is None and ui.windows()[-1] is ui.launcher


# --- reads that let the app run --------------------------------------------------------------


def test_a_read_with_a_pause_between_slices_meets_a_torn_down_screen(ui: EmulatorUi, clock: ManualClock) -> None:
    from pytest_mobile_agent.virtual.ui.node import READ_SLICE, TornDown

    started(ui, clock, "Big")
    window = app_window(ui)
    calls: list[int] = []

    def switch_tab() -> None:
        calls.append(1)
        if len(calls) == 1:
            by_res(ui, "tab_login").on_click()  # type: ignore[misc]

    with pytest.raises(TornDown) as torn:
        window.read(switch_tab)
    assert torn.value.window == window.id and calls == [1]
    read = window.read(lambda: None)  # from the root again: the frame, the Login screen to come
    assert not any((n["res"] or "").startswith("cell_") for n in read.nodes)
    assert len(read.nodes) < READ_SLICE


def test_a_change_that_tears_nothing_down_is_read_through_and_not_cached(ui: EmulatorUi, clock: ManualClock) -> None:
    started(ui, clock, "Big")
    window = app_window(ui)
    cell = by_res(ui, "cell_500")  # read last: still to be read at every pause

    def toggle() -> None:
        if not cell.selected:
            cell.on_click()  # type: ignore[misc]

    read = window.read(toggle)
    assert len(read.nodes) == 563
    assert next(n for n in read.nodes if n["res"] == "cell_500")["selected"] is True
    assert window.read() is not read  # the window changed under the read: built again next time
    assert window.read() is window.read()  # and cached from then on


def test_systemui_shows_its_clipboard_overlay_for_a_clip_without_the_suppress_extra(
        ui: EmulatorUi, clock: ManualClock) -> None:
    """ClipboardListener.onPrimaryClipChanged / shouldSuppressOverlay (Android 13+)."""
    from pytest_mobile_agent.virtual.ui.clipboard import OVERLAY_TIMEOUT_MS, SHELL_PACKAGE, Clip

    started(ui, clock, "Login")
    ui.set_clip(Clip("quiet").unseen(), source=SHELL_PACKAGE)
    assert ui.clipboard_overlay is None and ui.clipboard == "quiet"
    ui.clipboard = "copied by the app"  # an app's copy: no extra
    overlay = ui.clipboard_overlay
    assert overlay is not None and overlay in ui.accessibility_windows()
    assert next(n for n in overlay.nodes() if n.res and n.res.endswith("text_preview")).text == "copied by the app"
    ui.touch(540, 600, True)  # a touch outside it closes it
    ui.touch(540, 600, False)
    assert ui.clipboard_overlay is None
    ui.set_clip(Clip("again"), source=SHELL_PACKAGE)
    assert ui.clipboard_overlay is not None
    clock.advance(OVERLAY_TIMEOUT_MS + 1)
    ui.advance()
    assert ui.clipboard_overlay is None, "gone on its timeout"
