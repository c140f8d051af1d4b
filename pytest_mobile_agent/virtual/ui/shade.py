"""What SystemUI draws of the device state (android/state.py): the notification shade while it is
expanded, with a row per notification as the platform's notification template lays it out
(`android:id/app_name_text`, `android:id/title`, `android:id/text`), the lock screen while the
keyguard shows, and the status bar's icons for the radios (airplane mode, Wi-Fi: ui/system.py).
The shade and the lock screen are SystemUI's NotificationShade window (its title in the window
list), above the app and under the status bar; the lock screen takes every touch.

`attach_state(ui, state, activity)` draws them as the state changes, and gives the activity manager
the image's browser (ui/browser.py), which handles http and https URLs.
"""

from __future__ import annotations

from pytest_mobile_agent.virtual.android.activity import ActivityManager
from pytest_mobile_agent.virtual.android.notifications import Notification
from pytest_mobile_agent.virtual.android.state import DeviceState
from pytest_mobile_agent.virtual.ui.browser import BrowserApp
from pytest_mobile_agent.virtual.ui.geometry import Geometry
from pytest_mobile_agent.virtual.ui.model import UiModel
from pytest_mobile_agent.virtual.ui.node import Node, Window
from pytest_mobile_agent.virtual.ui.system import status_icons

SYSTEMUI = "com.android.systemui"
LAYER_SHADE = 5
ROW_HEIGHT = 220
SHELL_LABEL = "Shell"  # com.android.shell's label, the app name of the shell's notifications


def shade_window(geo: Geometry, notifications: list[Notification]) -> Window:
    top = geo.status_bar[3]
    bottom = min(geo.height - geo.dp(48), top + geo.dp(120) + ROW_HEIGHT * max(1, len(notifications)))
    window = Window(type="system", title="NotificationShade", package=SYSTEMUI, layer=LAYER_SHADE,
                    bounds=(0, 0, geo.width, bottom), sends_change_events=True)
    rid = f"{SYSTEMUI}:id/"
    window.root.res = rid + "notification_panel"
    stack = window.root.add(Node("android.widget.ScrollView", (0, top, geo.width, bottom),
                                 res=rid + "notification_stack_scroller", package=SYSTEMUI))
    if not notifications:
        stack.add(Node("android.widget.TextView", (0, top, geo.width, top + ROW_HEIGHT), text="No notifications",
                       res=rid + "no_notifications", package=SYSTEMUI))
    for i, notification in enumerate(notifications):
        y = top + i * ROW_HEIGHT
        row = stack.add(Node("android.widget.FrameLayout", (0, y, geo.width, y + ROW_HEIGHT),
                             res=rid + "expandableNotificationRow", package=SYSTEMUI, clickable=True, focusable=True))
        label = SHELL_LABEL if notification.package == "com.android.shell" else notification.package
        for res, text, (upper, lower) in (("android:id/app_name_text", label, (10, 60)),
                                          ("android:id/title", notification.title, (70, 130)),
                                          ("android:id/text", notification.text, (140, 200))):
            if text:
                row.add(Node("android.widget.TextView", (geo.dp(16), y + upper, geo.width - geo.dp(16), y + lower),
                             text=text, res=res, package=SYSTEMUI))
    return window


def keyguard_window(geo: Geometry) -> Window:
    window = Window(type="system", title="NotificationShade", package=SYSTEMUI, layer=LAYER_SHADE,
                    bounds=geo.app, sends_change_events=True, modal=True)
    rid = f"{SYSTEMUI}:id/"
    window.root.res = rid + "keyguard_root_view"
    window.root.add(Node("android.widget.TextView", (0, geo.height // 4, geo.width, geo.height // 4 + 240),
                         text="Swipe up to unlock", res=rid + "keyguard_indication_text", package=SYSTEMUI))
    return window


class StateUi:
    """Keeps the shade and the lock screen on the screen as the state says."""

    def __init__(self, ui: UiModel, state: DeviceState) -> None:
        self.ui = ui
        self.state = state
        self.shade: Window | None = None
        self.keyguard: Window | None = None

    def notifications_changed(self) -> None:
        with self.ui.lock:
            self._drop("shade")
            notifications = self.state.notifications
            if notifications.shade_expanded:
                self.shade = shade_window(self.ui.geo, list(notifications.posted))
                self.ui.add_window(self.shade)

    def keyguard_changed(self) -> None:
        with self.ui.lock:
            self._drop("keyguard")
            if self.state.power.keyguard_showing:
                self.keyguard = keyguard_window(self.ui.geo)
                self.ui.add_window(self.keyguard)

    def radios_changed(self) -> None:
        """The status bar's icons as SystemUI draws the radios (ui/system.status_icons)."""
        radios = self.state.radios
        self.ui.set_status_icons(status_icons(airplane=radios.airplane, wifi=radios.wifi))

    def _drop(self, name: str) -> None:
        window = getattr(self, name)
        setattr(self, name, None)
        if window is not None:
            self.ui.remove_window(window)


def attach_state(ui: UiModel, state: DeviceState, activity: ActivityManager) -> StateUi:
    drawn = StateUi(ui, state)
    # ClipboardService's isDeviceLocked (KeyguardManager.isDeviceLocked: a secure keyguard showing)
    # and its Settings.Secure.clipboard_show_access_notifications
    ui.device_locked = lambda: state.power.keyguard_showing and state.power.secure_lock
    ui.clipboard_access_notifications = lambda: state.settings["secure"].get(
        "clipboard_show_access_notifications", "1") != "0"
    ui.font_scale = lambda: font_scale(state.settings["system"].get("font_scale"))
    state.notifications.listeners.append(drawn.notifications_changed)
    state.power.listeners.append(drawn.keyguard_changed)
    state.radios.listeners.append(drawn.radios_changed)
    drawn.radios_changed()
    activity.install_system_app(BrowserApp(ui))
    return drawn


def font_scale(value: str | None) -> float:
    """Settings.System.FONT_SCALE as Configuration.fontScale takes it: 1.0 when unset or unreadable
    (Settings.System.getFloat's default in ActivityManagerService's updateFontScaleIfNeeded)."""
    try:
        scale = float(value) if value is not None else 1.0
    except ValueError:
        return 1.0
    return scale if scale > 0 else 1.0
