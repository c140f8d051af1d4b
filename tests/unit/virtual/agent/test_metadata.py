"""Window metadata on the agent double, as Android 13+ reports windows: a touch-modal dialog takes
its whole task as its touch region, so getWindows() leaves out the app window under it
(AccessibilityController's WindowsForAccessibilityObserver, AccessibilityWindowsPopulator,
WindowState.updateRegionForModalActivityWindow; the UI model's `ui/accessibility.py`). The double
derives owner and modality from what is reported, with the Java agent's rule (tree/WindowMeta).
The seed's metadata scenarios: a permission prompt, an in-app alert, the keyboard."""

from __future__ import annotations

from pytest_mobile_agent.virtual.agent.tree import modal_flags
from pytest_mobile_agent.virtual.ui import EmulatorUi
from pytest_mobile_agent.virtual.ui.fixture import PACKAGE
from pytest_mobile_agent.virtual.ui.system import KEYBOARD_PACKAGE, PERMISSION_CONTROLLER
from tests.support.agent_host import Host, on_tab


def on_login(ui: EmulatorUi) -> None:
    on_tab(ui, "Login")


def titled(snapshot: dict, title: str) -> dict:
    return next(w for w in snapshot["windows"] if w["title"] == title)


def test_a_permission_prompt_is_a_modal_window_owned_by_the_permission_controller(ui: EmulatorUi, host: Host) -> None:
    ui.start_app({"tab": "Login", "prompt": "camera"})
    snap = host.result("snapshot")
    assert [w["title"] for w in snap["windows"]] == ["StatusBar", "NavigationBar0", "Permission"]
    prompt = titled(snap, "Permission")
    assert (prompt["type"], prompt["package"], prompt["owner"], prompt["modal"], prompt["sends_change_events"]) == (
        "application", PERMISSION_CONTROLLER, PERMISSION_CONTROLLER, True, True)


def test_an_in_app_alert_is_a_modal_window_of_the_app_that_sends_no_change_events(ui: EmulatorUi, host: Host) -> None:
    on_login(ui)
    with ui.lock:
        ui.app.show_alert("Signed in", "Welcome, ada")
    snap = host.result("snapshot")
    assert "Compose fixture" not in [w["title"] for w in snap["windows"]], "the app under the alert is not reported"
    alert = titled(snap, "Signed in")
    assert (alert["type"], alert["package"], alert["owner"], alert["modal"], alert["sends_change_events"]) == (
        "application", PACKAGE, None, True, False)
    assert alert["focused"]


def test_the_keyboard_is_not_modal_and_the_app_under_it_stays_reported(ui: EmulatorUi, host: Host) -> None:
    on_login(ui)
    with ui.lock:
        username = next(n for w in ui.windows() for n in w.nodes() if n.res == "username")
        ui.focus(username)
    snap = host.result("snapshot")
    keyboard = titled(snap, "InputMethod")
    assert (keyboard["type"], keyboard["owner"], keyboard["modal"]) == ("input_method", KEYBOARD_PACKAGE, False)
    app = titled(snap, "Compose fixture")
    assert (app["owner"], app["modal"], app["focused"]) == (None, False, True)


def test_windows_in_split_screen_are_not_modal_and_a_dialog_over_one_half_is() -> None:
    """The rule on split screen (the UI model has none): two tasks, each as wide as the display."""
    def window(kind: str, bounds: list[int], focused: bool, package: str = "app") -> dict:
        return {"type": kind, "bounds": bounds, "focused": focused, "package": package}

    halves = [window("split_screen_divider", [0, 1180, 1080, 1220], False, "com.android.systemui"),
              window("application", [0, 63, 1080, 1180], True), window("application", [0, 1220, 1080, 2400], False)]
    assert modal_flags(halves, 1080, 2400, lambda: None) == [False, False, False]
    dialog = window("application", [100, 300, 980, 700], True)
    assert modal_flags([dialog, halves[0], halves[2]], 1080, 2400, lambda: None) == [True, False, False]
    assert modal_flags([dialog, halves[0], halves[2]], 1080, 2400, lambda: (0, 63, 1080, 1180)) == \
        [True, False, False]
