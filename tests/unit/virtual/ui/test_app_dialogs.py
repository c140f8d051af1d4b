"""system_server's "isn't responding" and "keeps stopping" dialogs on the virtual device's model
(virtual/ui/app_dialogs.py): system windows of the `android` package with AOSP's button ids, which
a tap on any button takes away."""

from __future__ import annotations

import pytest

from pytest_mobile_agent.virtual.ui import EmulatorUi, ManualClock
from pytest_mobile_agent.virtual.ui.app_dialogs import show_app_error, show_app_not_responding
from tests.unit.virtual.ui.test_fixture_login import by_res, tap


@pytest.mark.parametrize(("show", "message", "buttons"), [
    (show_app_not_responding, "Compose fixture isn't responding", ["Close app", "Wait"]),
    (show_app_error, "Compose fixture keeps stopping", ["App info", "Close app"]),
])
def test_the_dialog_is_a_modal_system_window_of_android_and_a_button_takes_it_away(
        show: object, message: str, buttons: list[str]) -> None:
    ui = EmulatorUi(ManualClock())
    window = show(ui, "dev.mobileagent.fixture", "Compose fixture")  # type: ignore[operator]
    assert window in ui.windows() and window.type == "system" and window.package == "android" and window.modal
    assert by_res(ui, "android:id/alertTitle").text == message  # type: ignore[union-attr]
    assert [n.text for n in window.root.children if n.clickable] == buttons
    tap(ui, "android:id/aerr_close")
    assert window not in ui.windows()
