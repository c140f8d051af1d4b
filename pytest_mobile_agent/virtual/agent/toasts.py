"""The agent double's toast buffer (the Java agent's `core/Toasts`; docs/protocol.md, `toasts`).

It hears the device's toasts as UiAutomation delivers them: each `Toast.show()` of an app is one
TYPE_NOTIFICATION_STATE_CHANGED event whose class is `android.widget.Toast` (virtual/ui/toasts.py
cites AOSP), and keeps the last CAPACITY with their times, numbered from 1 for the agent's lifetime.

A toast the agent caused is marked `by_agent` (core/Toasts): ClipboardService's access toast,
package `android`, for the shell's reads and the app's read of a pasted clip
(ClipboardService.showAccessNotificationLocked). Each read the agent makes or causes is expected;
the next toast of package `android` within EXPECT_MS takes one expectation.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pytest_mobile_agent.virtual.agent.params import int_param
from pytest_mobile_agent.virtual.ui.toasts import TOAST_CLASS, ToastEvent, Toasts

CAPACITY = 64
LONG_MAX = 2**63 - 1
SYSTEM_PACKAGE = "android"
EXPECT_MS = 10_000.0  # core/Toasts.EXPECT_MS: the toast can wait behind others (one shown at a time)


@dataclass(frozen=True)
class _Kept:
    id: int
    event: ToastEvent
    by_agent: bool


class ToastBuffer:
    """Subscribed to the device's toasts from its start until `close()`."""

    def __init__(self, toasts: Toasts, now_ms: Callable[[], float]) -> None:
        self._now_ms = now_ms
        self._lock = threading.Lock()
        self._kept: deque[_Kept] = deque(maxlen=CAPACITY)
        self._last = 0
        self._expected: deque[float] = deque()
        self._unsubscribe = toasts.subscribe(self._heard)

    def _heard(self, event: ToastEvent) -> None:
        if event.class_name != TOAST_CLASS and not event.class_name.startswith(TOAST_CLASS + "$"):
            return
        with self._lock:
            self._last += 1
            self._kept.append(_Kept(self._last, event, self._expected_at(event)))

    def expect_system_toasts(self, count: int) -> None:
        """The agent is about to read the clipboard (or have an app read it) `count` times."""
        with self._lock:
            self._expected.extend([self._now_ms() + EXPECT_MS] * count)

    def _expected_at(self, event: ToastEvent) -> bool:
        while self._expected and self._expected[0] < event.at_ms:
            self._expected.popleft()
        if event.package != SYSTEM_PACKAGE or not self._expected:
            return False
        self._expected.popleft()
        return True

    def answer(self, params: dict[str, Any], deadline: float) -> dict[str, Any]:
        """The `toasts` result: the toasts kept whose id is above `after`, oldest first."""
        after = int_param(params, "after", maximum=LONG_MAX, default=0)
        now = self._now_ms()
        with self._lock:
            kept, last = list(self._kept), self._last
        return {"toasts": [{"id": k.id, "text": k.event.text, "package": k.event.package, "class": k.event.class_name,
                            "age_ms": max(0, round(now - k.event.at_ms)), "by_agent": k.by_agent}
                           for k in kept if k.id > after],
                "last": last}

    def close(self) -> None:
        self._unsubscribe()
