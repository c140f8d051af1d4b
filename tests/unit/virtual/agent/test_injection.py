"""Injection on the agent double never waits for the window manager or for the app.

On Android 14+ the public UiAutomation.injectInputEvent(event, sync) waits for every window
animation before a DOWN and after an UP (UiAutomation.java, UiAutomationConnection.injectInputEvent,
WindowManagerService.syncInputTransactions / waitForAnimationsToComplete, at most 5 s), and
sync=true waits for the app to handle the event. The UI model's window transitions and
`ui/injection.py` charge each call that, so the agent's old call is visibly slow during a
transition, and the call it makes now (the input service's asynchronous injection, scrcpy's) is not.
"""

from __future__ import annotations

import time
from collections.abc import Iterable

import pytest

from pytest_mobile_agent.virtual.agent import AgentCore
from pytest_mobile_agent.virtual.ui import EmulatorUi, injection
from pytest_mobile_agent.virtual.ui.injection import FRAME_MS, WINDOW_ANIMATION_MS, Call
from pytest_mobile_agent.virtual.ui.model import TouchEvent
from tests.support.agent_host import Host
from tests.support.press_counter import Button, X, Y


def touches_at(ui: EmulatorUi, monkeypatch: pytest.MonkeyPatch) -> list[tuple[bool, float]]:
    """Every touch the model receives, with the model time it arrived at."""
    seen: list[tuple[bool, float]] = []
    touches = ui.touches

    def recording(events: Iterable[TouchEvent]) -> None:
        events = list(events)
        seen.extend((pressed, ui.now_ms()) for _, _, pressed, _ in events)
        touches(events)

    monkeypatch.setattr(ui, "touches", recording)
    return seen


def test_a_tap_during_a_window_transition_lands_at_once(
        ui: EmulatorUi, host: Host, monkeypatch: pytest.MonkeyPatch) -> None:
    seen = touches_at(ui, monkeypatch)
    ui.start_app({"tab": "Login"})  # the app's window appears: a transition runs
    transition_ends = ui.animations_end_ms()
    assert transition_ends > ui.now_ms()
    assert host.result("tap", {"x": 540, "y": 300}) == {"accepted": True}
    assert [pressed for pressed, _ in seen] == [True, False]
    assert all(at < transition_ends for _, at in seen), "neither the DOWN nor the UP waited for the transition"


def test_the_old_call_holds_the_down_until_the_transition_is_over(
        ui: EmulatorUi, core: AgentCore, host: Host, monkeypatch: pytest.MonkeyPatch) -> None:
    core.gestures.injector.call = Call.UI_AUTOMATION_WAIT_FOR_ANIMATIONS_SYNC
    seen = touches_at(ui, monkeypatch)
    ui.start_app({"tab": "Login"})
    transition_ends = ui.animations_end_ms()
    host.result("tap", {"x": 540, "y": 300})
    down_at = seen[0][1]
    assert down_at >= transition_ends, "the DOWN went out only once the window animation was over"
    assert ui.now_ms() >= down_at + 2 * FRAME_MS, "the app handled both events and the UP was synced"


def test_the_costs_follow_ui_automation_connection() -> None:
    now, ends = 1000.0, 1000.0 + WINDOW_ANIMATION_MS
    agents = Call.INPUT_MANAGER_ASYNC
    assert [injection.before_ms(agents, a, now, ends) + injection.after_ms(agents, a, now, ends)
            for a in ("down", "move", "up")] == [0, 0, 0]
    no_wait = Call.UI_AUTOMATION_NO_ANIMATION_WAIT
    assert injection.before_ms(no_wait, "down", now, ends) == FRAME_MS  # the window infos, not the animation
    assert injection.after_ms(no_wait, "up", now, ends) == FRAME_MS
    assert injection.before_ms(no_wait, "move", now, ends) == injection.after_ms(no_wait, "move", now, ends) == 0
    old = Call.UI_AUTOMATION_WAIT_FOR_ANIMATIONS_SYNC
    assert injection.before_ms(old, "down", now, ends) == WINDOW_ANIMATION_MS + FRAME_MS
    assert injection.before_ms(old, "down", now, now + 60_000) == injection.ANIMATION_TIMEOUT_MS + FRAME_MS
    assert injection.after_ms(old, "move", now, ends) == 0


def test_a_tap_the_starved_host_holds_back_is_still_a_tap(ui: EmulatorUi, host: Host) -> None:
    """The issue's long presses: the agent double and the UI model share a starved host, so the
    model got to the DOWN and the UP 800 ms after the tap was injected. The DOWN and the UP are
    queued together with their event times (the device's, where the Java agent injects them back to
    back), so the model's long-press check, due 500 ms after the DOWN, comes after the UP."""
    button = Button(ui)
    with ui.lock:  # the UI thread does not run: the tap's events wait
        host.send({"type": "request", "id": 99, "method": "tap", "deadline_ms": 5000,
                   "params": {"x": X, "y": Y}})
        time.sleep(0.8)
    assert host.recv_kind("response")["result"] == {"accepted": True}
    ui.advance()
    assert (button.clicks, button.long_clicks) == (1, 0)
