"""Toasts on the virtual device: what an app's `Toast.makeText(...).show()` sends to accessibility.

A toast is never a window an accessibility client reads (it takes no touches and is not in
`getWindows()`); what reaches UiAutomation is one event, TYPE_NOTIFICATION_STATE_CHANGED, whose class
is `android.widget.Toast`, whose package is the app's and whose text is the toast's. AOSP (Android
11 and later): Toast.show -> INotificationManager.enqueueTextToast (NotificationManagerService
queues it, one at a time) -> SystemUI's ToastUI shows it through ToastPresenter.show, whose
trySendAccessibilityEvent builds that event and hands it to AccessibilityManager.sendAccessibilityEvent
(frameworks/base/core/java/android/widget/ToastPresenter.java, NotificationManagerService.java).
Before Android 11 the class was the toast's `Toast$TN`, which an agent reads as a toast too.

Subscribers (the agent double's toast buffer, virtual/agent/toasts.py) are called with each toast as
it is shown; a subscriber must be quick (it runs under the caller's locks).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

from pytest_mobile_agent.virtual.ui.clock import Clock

TOAST_CLASS = "android.widget.Toast"


@dataclass(frozen=True)
class ToastEvent:
    """The TYPE_NOTIFICATION_STATE_CHANGED event of one toast, as UiAutomation delivers it."""

    package: str
    text: str
    class_name: str
    at_ms: float
    """The event's time on the model clock (AccessibilityEvent.getEventTime, uptime milliseconds)."""


ToastListener = Callable[[ToastEvent], None]


class Toasts:
    """The toasts shown on one device, as events to whoever listens (the accessibility manager)."""

    def __init__(self, clock: Clock) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._listeners: list[ToastListener] = []

    def subscribe(self, listener: ToastListener) -> Callable[[], None]:
        """Hear every toast from now on; returns the call that stops it."""
        with self._lock:
            self._listeners = [*self._listeners, listener]

        def unsubscribe() -> None:
            with self._lock:
                self._listeners = [entry for entry in self._listeners if entry is not listener]

        return unsubscribe

    def show(self, package: str, text: str) -> ToastEvent:
        """An app shows a text toast: its accessibility event goes out now."""
        event = ToastEvent(package, text, TOAST_CLASS, self._clock.now_ms())
        for listener in self._listeners:
            listener(event)
        return event
