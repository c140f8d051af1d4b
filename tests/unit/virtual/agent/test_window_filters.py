"""What the accessibility window list leaves out, and modality with freeform (desktop) tasks, on the
agent double as on the Java fake platform (agent-android/host/.../fake/ReportedWindows.java and
MetadataTest): AOSP's AccessibilityWindowManager (services/accessibility/java/com/android/server/
accessibility/AccessibilityWindowManager.java, Android 15+; AccessibilityController.java before):
`windowMattersToAccessibility` drops non-touchable windows and the types `isReportedWindowType`
leaves out (the wallpaper), `windowMattersToUnaccountedSpaceComputation` lets a trusted
non-touchable overlay and an accessibility overlay hide nothing; a freeform task's window takes only
its frame; a dialog is modal in its own task (the Java agent's tree/WindowMeta.modal)."""

from __future__ import annotations

import pytest

from pytest_mobile_agent.virtual.agent.tree import modal_flags
from pytest_mobile_agent.virtual.ui import EmulatorUi, UiModel
from pytest_mobile_agent.virtual.ui.node import Bounds, Node, Window
from pytest_mobile_agent.virtual.ui.system import LAYER_ALERT, LAYER_APP, SYSTEMUI
from pytest_mobile_agent.virtual.ui.window_types import (
    TYPE_ACCESSIBILITY_OVERLAY,
    TYPE_NAVIGATION_BAR_PANEL,
    TYPE_WALLPAPER,
)
from tests.support.agent_host import Host

FREEFORM: Bounds = (100, 300, 900, 1500)


@pytest.fixture
def ui() -> EmulatorUi:
    return EmulatorUi(ticker=False)


def titled(snapshot: dict, title: str) -> dict | None:
    return next((w for w in snapshot["windows"] if w["title"] == title), None)


def freeform_form(ui: UiModel) -> Window:
    """An app's window as a freeform task's, its task its own frame."""
    window = Window(type="application", title="Form", package="dev.mobileagent.rnfixture", layer=LAYER_APP,
                    bounds=FREEFORM, sends_change_events=True, task=FREEFORM)
    window.root.add(Node("android.widget.EditText", (150, 400, 850, 500), editable=True, focusable=True))
    ui.add_window(window)
    return window


def alert_in_task(ui: UiModel, task: Bounds) -> Window:
    """A dialog of the task with these bounds, a quarter in from each side."""
    left, top, right, bottom = task
    w, h = (right - left) // 4, (bottom - top) // 4
    bounds = (left + w, top + h, right - w, bottom - h)
    window = Window(type="application", title="Alert", package="dev.mobileagent.rnfixture", layer=LAYER_ALERT,
                    bounds=bounds, sends_change_events=True, modal=True, task=task)
    ui.add_window(window)
    return window


def full_screen(title: str, layer: int, **flags: object) -> Window:
    return Window(type="system", title=title, package=SYSTEMUI, layer=layer, bounds=(0, 0, 1080, 2400),
                  sends_change_events=True, **flags)  # type: ignore[arg-type]


def test_a_freeform_windows_touch_region_is_its_frame_so_the_home_screen_around_it_stays_reported(
        ui: EmulatorUi, host: Host) -> None:
    freeform_form(ui)
    snap = host.result("snapshot")
    form, home = titled(snap, "Form"), titled(snap, "Home")
    assert form is not None and home is not None
    assert (form["focused"], form["modal"], home["modal"]) == (True, False, False)


def test_a_dialog_inside_a_freeform_task_over_the_home_screen_is_modal(ui: EmulatorUi, host: Host) -> None:
    """The old rule took the display for the dialog's task: the home screen, another task's window,
    went unreported (hidden by a region the size of the display)."""
    freeform_form(ui)
    alert_in_task(ui, FREEFORM)
    snap = host.result("snapshot")
    alert, home = titled(snap, "Alert"), titled(snap, "Home")
    assert alert is not None and alert["modal"] is True
    assert titled(snap, "Form") is None, "its own task's window is under its touch region"
    assert home is not None and home["modal"] is False, "another task's window is still reported"


def test_a_lone_freeform_window_is_not_modal() -> None:
    """Over the desktop's wallpaper, with no application window under it: the old rule (focused,
    floating on the display, no application window under it) called it modal."""
    def window(kind: str, bounds: list[int], focused: bool, package: str = "app") -> dict:
        return {"type": kind, "bounds": bounds, "focused": focused, "package": package}

    metas = [window("system", [0, 0, 1080, 63], False, SYSTEMUI), window("application", list(FREEFORM), True)]
    assert modal_flags(metas, 1080, 2400, lambda: FREEFORM) == [False, False]
    dialog = window("application", [300, 600, 700, 1200], True)
    assert modal_flags([metas[0], dialog], 1080, 2400, lambda: FREEFORM) == [False, True], \
        "a dialog in a lone freeform task stays modal"


def test_of_two_overlapping_freeform_tasks_neither_is_modal(ui: EmulatorUi, host: Host) -> None:
    below = Window(type="application", title="Below", package="dev.mobileagent.fixture", layer=LAYER_APP,
                   bounds=(0, 200, 800, 1600), sends_change_events=True, task=(0, 200, 800, 1600))
    ui.add_window(below)
    freeform_form(ui)
    snap = host.result("snapshot")
    assert [titled(snap, t)["modal"] for t in ("Form", "Below")] == [False, False]  # type: ignore[index]


def test_a_full_screen_app_needs_no_task_look_up(ui: EmulatorUi, host: Host, monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[object] = []
    task_bounds = ui.focused_task_bounds
    monkeypatch.setattr(ui, "focused_task_bounds", lambda: asked.append(1) or task_bounds())
    ui.start_app({"tab": "Login"})
    host.result("snapshot")
    assert asked == [], "the task's bounds are asked for only for a focused floating window"
    alert_in_task(ui, (0, 0, 1080, 2400))
    assert titled(host.result("snapshot"), "Alert")["modal"] is True  # type: ignore[index]
    assert asked == [1]


def test_a_non_touchable_trusted_overlay_is_not_reported_and_hides_nothing(ui: EmulatorUi, host: Host) -> None:
    """A screen decoration (rounded corners) above everything: the old list reported it and let it
    take the whole display, hiding the status bar; touches go through it to the window under it."""
    ui.add_window(full_screen("ScreenDecorOverlay", 20, layout_type=TYPE_NAVIGATION_BAR_PANEL, touchable=False,
                              trusted_overlay=True))
    snap = host.result("snapshot")
    assert titled(snap, "ScreenDecorOverlay") is None
    assert titled(snap, "StatusBar") is not None and titled(snap, "Home") is not None
    window, _ = ui.hit(540, 30)
    assert window is ui.status_bar, "the input dispatcher looks through a FLAG_NOT_TOUCHABLE window"


def test_an_accessibility_overlay_is_reported_but_takes_no_space(ui: EmulatorUi, host: Host) -> None:
    overlay = full_screen("Overlay", 20, layout_type=TYPE_ACCESSIBILITY_OVERLAY)
    overlay.type = "accessibility_overlay"
    ui.add_window(overlay)
    snap = host.result("snapshot")
    assert titled(snap, "Overlay")["type"] == "accessibility_overlay"  # type: ignore[index]
    assert titled(snap, "StatusBar") is not None, "the status bar under it is still reported"


def test_the_wallpaper_is_never_reported(ui: EmulatorUi, host: Host) -> None:
    """TYPE_WALLPAPER is not a reported type (isReportedWindowType), though it meets the space the
    windows above it leave (here: a wallpaper above the home screen, as a live wallpaper's)."""
    ui.add_window(full_screen("Wallpaper", 2, layout_type=TYPE_WALLPAPER))
    assert titled(host.result("snapshot"), "Wallpaper") is None
