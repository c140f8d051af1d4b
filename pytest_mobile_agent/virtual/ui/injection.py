"""What injecting an input event costs on Android 14+, by the call that injects it.

- `INPUT_MANAGER_ASYNC`: IInputManager.injectInputEvent(event, INJECT_INPUT_EVENT_MODE_ASYNC), the
  call scrcpy's server makes and the agent makes (agent-android's wrappers/InputInjection): one
  binder call (well under a millisecond, modelled as free); nothing is waited for.
- `UI_AUTOMATION_NO_ANIMATION_WAIT`: UiAutomation.injectInputEvent(event, false, false) (hidden,
  API 34+): UiAutomationConnection.injectInputEvent still calls
  IWindowManager.syncInputTransactions(false) before a DOWN and after an UP, which waits for
  SurfaceFlinger to report the window infos (a frame).
- `UI_AUTOMATION_WAIT_FOR_ANIMATIONS_SYNC`: the public UiAutomation.injectInputEvent(event, true),
  the agent's call before: the three-argument form with waitForAnimations true
  (core/java/android/app/UiAutomation.java), so syncInputTransactions(true) first waits until no
  window animation runs (WindowManagerService.waitForAnimationsToComplete, at most
  ANIMATION_COMPLETED_TIMEOUT_MS = 5000), and sync=true injects with
  INJECT_INPUT_EVENT_MODE_WAIT_FOR_FINISH, which waits for the app to handle the event (a frame).

The UI model says when its window animations end (`UiModel.animations_end_ms`: a window appearing,
going away or coming to the front animates for `WINDOW_ANIMATION_MS`). The Java fake platform
charges the same costs (agent-android/host/.../fake/FakeInjection.java).
"""

from __future__ import annotations

from enum import Enum

FRAME_MS = 16.0
ANIMATION_TIMEOUT_MS = 5000.0
#: how long a window transition runs (an activity opening, a dialog appearing, the keyboard)
WINDOW_ANIMATION_MS = 300.0

DOWN, UP, MOVE = "down", "up", "move"


class Call(Enum):
    INPUT_MANAGER_ASYNC = "input_manager_async"
    UI_AUTOMATION_NO_ANIMATION_WAIT = "ui_automation_no_animation_wait"
    UI_AUTOMATION_WAIT_FOR_ANIMATIONS_SYNC = "ui_automation_wait_for_animations_sync"


def before_ms(call: Call, action: str, now_ms: float, animations_end_ms: float) -> float:
    """How long the call blocks before the event reaches the input dispatcher (the window-manager
    sync before a DOWN)."""
    if call is Call.INPUT_MANAGER_ASYNC or action != DOWN:
        return 0.0
    return _window_sync_ms(call, now_ms, animations_end_ms)


def after_ms(call: Call, action: str, now_ms: float, animations_end_ms: float) -> float:
    """How long the call blocks after the event was dispatched: the app handling it (sync=true),
    and the window-manager sync after an UP."""
    if call is not Call.UI_AUTOMATION_WAIT_FOR_ANIMATIONS_SYNC and (call is Call.INPUT_MANAGER_ASYNC or action != UP):
        return 0.0
    handled = FRAME_MS if call is Call.UI_AUTOMATION_WAIT_FOR_ANIMATIONS_SYNC and action != MOVE else 0.0
    synced = _window_sync_ms(call, now_ms + handled, animations_end_ms) if action == UP else 0.0
    return handled + synced


def _window_sync_ms(call: Call, now_ms: float, animations_end_ms: float) -> float:
    animation = 0.0
    if call is Call.UI_AUTOMATION_WAIT_FOR_ANIMATIONS_SYNC:
        animation = min(ANIMATION_TIMEOUT_MS, max(0.0, animations_end_ms - now_ms))
    return animation + FRAME_MS
