"""The agent double's toast buffer (docs/protocol.md `toasts`), as the Java agent's ToastsTest: toasts
heard from the device's accessibility events, with their ages, asked for after the last seen."""

from __future__ import annotations

import pytest

from pytest_mobile_agent.virtual.agent import AgentCore
from pytest_mobile_agent.virtual.agent.toasts import CAPACITY
from pytest_mobile_agent.virtual.ui import EmulatorUi, ManualClock
from tests.support.agent_host import Host

PACKAGE = "dev.mobileagent.fixture"


@pytest.fixture
def ui() -> EmulatorUi:
    return EmulatorUi(ManualClock())


def test_a_toast_is_kept_with_its_text_package_class_and_age_and_asked_for_after_the_last_seen(
        ui: EmulatorUi, host: Host) -> None:
    clock = ui.clock
    assert isinstance(clock, ManualClock)
    assert host.result("toasts", {}) == {"toasts": [], "last": 0}
    ui.toasts.show(PACKAGE, "Continuing as guest")
    clock.advance(250)
    ui.toasts.show(PACKAGE, "Saved")
    clock.advance(40)
    assert host.result("toasts", {"after": 0}) == {"toasts": [
        {"id": 1, "text": "Continuing as guest", "package": PACKAGE, "class": "android.widget.Toast", "age_ms": 290,
         "by_agent": False},
        {"id": 2, "text": "Saved", "package": PACKAGE, "class": "android.widget.Toast", "age_ms": 40,
         "by_agent": False}], "last": 2}
    assert [t["text"] for t in host.result("toasts", {"after": 1})["toasts"]] == ["Saved"]


def test_the_buffer_keeps_the_latest_toasts_and_a_bad_after_is_invalid_params(ui: EmulatorUi, host: Host) -> None:
    for i in range(1, CAPACITY + 7):
        ui.toasts.show(PACKAGE, f"toast {i}")
    result = host.result("toasts", {})
    assert len(result["toasts"]) == CAPACITY and result["toasts"][0]["id"] == 7 and result["last"] == CAPACITY + 6
    reply = host.call("toasts", {"after": -1})
    assert reply["error"]["code"] == "invalid_params"


def test_a_stopped_agent_hears_no_more_toasts(ui: EmulatorUi, core: AgentCore) -> None:
    core.stop()
    ui.toasts.show(PACKAGE, "after the agent")
    assert core.toasts.answer({}, 0.0)["toasts"] == []
