"""The system's windows: status bar, navigation bar, keyboard, permission prompt and launcher.

All of them are classic Android Views, so they send change events (unlike the Compose app).
Node counts (documented because the Big tab's 573 depends on them): the status bar has 6 nodes,
the navigation bar 4.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from pytest_mobile_agent.virtual.ui.geometry import Geometry
from pytest_mobile_agent.virtual.ui.node import Node, Window

SYSTEMUI = "com.android.systemui"
PERMISSION_CONTROLLER = "com.google.android.permissioncontroller"
#: the activity the prompt is (the window manager names it as the focus while it shows)
GRANT_PERMISSIONS_ACTIVITY = (f"{PERMISSION_CONTROLLER}/"
                              "com.android.permissioncontroller.permission.ui.GrantPermissionsActivity")
KEYBOARD_PACKAGE = "com.google.android.inputmethod.latin"
LAUNCHER_PACKAGE = "com.google.android.apps.nexuslauncher"

# Layers, top-most first in a snapshot.
LAYER_STATUS_BAR = 8
LAYER_NAV_BAR = 7
LAYER_KEYBOARD = 6
LAYER_PROMPT = 4
LAYER_ALERT = 3
LAYER_APP = 1

STATUS_BAR_NODES = 6
NAV_BAR_NODES = 4

# Android key codes the model understands.
KEYCODE_HOME = 3
KEYCODE_BACK = 4
KEYCODE_0 = 7
KEYCODE_A = 29
KEYCODE_COMMA = 55
KEYCODE_PERIOD = 56
KEYCODE_SHIFT_LEFT = 59
KEYCODE_TAB = 61
KEYCODE_SPACE = 62
KEYCODE_ENTER = 66
KEYCODE_PASTE = 279
KEYCODE_DEL = 67
KEYCODE_MINUS = 69
KEYCODE_AT = 77
META_SHIFT_ON = 1


def clock_text(wall: float) -> str:
    """The status bar clock's text in the tree: hours and minutes (UTC, as an emulator shows)."""
    return time.strftime("%H:%M", time.gmtime(wall))


@dataclass(frozen=True)
class StatusIcon:
    """One of SystemUI's status bar icons: its slot (the node's id) and what TalkBack reads."""

    slot: str
    desc: str


ICON_WIDTH = 70
AIRPLANE_ICON = StatusIcon("airplane", "Airplane mode.")
WIFI_ICON = StatusIcon("wifi_signal", "Wifi signal full.")
MOBILE_ICON = StatusIcon("mobile_signal", "Phone signal full.")
BATTERY_ICON = StatusIcon("battery", "Battery 100 percent.")


def status_icons(*, airplane: bool = False, wifi: bool = True) -> tuple[StatusIcon, ...]:
    """The system icons SystemUI shows for the radios, left to right in its order
    (config_statusBarIcons: airplane, wifi, mobile, battery): the airplane icon only in airplane
    mode (StatusBarSignalPolicy, its "airplane" slot), the Wi-Fi icon only while Wi-Fi is on (it may
    be on in airplane mode), and no mobile signal in airplane mode, when the cellular radio is off
    (the mobile icons' interactor hides them); the battery always."""
    shown = [AIRPLANE_ICON] if airplane else []
    if wifi:
        shown.append(WIFI_ICON)
    if not airplane:
        shown.append(MOBILE_ICON)
    return (*shown, BATTERY_ICON)


DEFAULT_STATUS_ICONS = status_icons()


def status_bar(geo: Geometry, wall: float, icons: tuple[StatusIcon, ...] = DEFAULT_STATUS_ICONS) -> Window:
    w = Window(type="system", title="StatusBar", package=SYSTEMUI, layer=LAYER_STATUS_BAR,
               bounds=geo.status_bar, sends_change_events=True)
    root = w.root
    root.res = f"{SYSTEMUI}:id/status_bar"
    h = geo.status_bar[3]
    root.add(Node("android.widget.TextView", (42, 0, 200, h), text=clock_text(wall),
                  res=f"{SYSTEMUI}:id/clock"))
    root.add(Node("android.widget.LinearLayout", (210, 0, 500, h), desc="Notifications",
                  res=f"{SYSTEMUI}:id/notification_icon_area"))
    lay_out_status_icons(geo, w, icons)
    return w


def lay_out_status_icons(geo: Geometry, status: Window, icons: tuple[StatusIcon, ...]) -> list[Node]:
    """The status bar's system icons (after its clock and notification area), right-aligned; the
    nodes."""
    root = status.root
    root.children = root.children[:2]
    h = geo.status_bar[3]
    x = geo.width - 40 - ICON_WIDTH * len(icons)
    for icon in icons:
        root.add(Node("android.widget.ImageView", (x, 0, x + ICON_WIDTH, h), desc=icon.desc,
                      res=f"{SYSTEMUI}:id/{icon.slot}"))
        x += ICON_WIDTH
    return root.children[2:]


def nav_bar(geo: Geometry, on_key: Callable[[int], object]) -> Window:
    w = Window(type="system", title="NavigationBar0", package=SYSTEMUI, layer=LAYER_NAV_BAR,
               bounds=geo.nav_bar, sends_change_events=True)
    root = w.root
    root.res = f"{SYSTEMUI}:id/navigation_bar_frame"
    top, bottom = geo.nav_bar[1], geo.nav_bar[3]
    third = geo.width // 3
    for i, (name, desc, code) in enumerate((("back", "Back", KEYCODE_BACK), ("home", "Home", KEYCODE_HOME),
                                             ("recent_apps", "Overview", None))):
        node = Node("android.widget.ImageView", (i * third, top, (i + 1) * third, bottom), desc=desc,
                    res=f"{SYSTEMUI}:id/{name}", clickable=True, focusable=True)
        if code is not None:
            node.on_click = (lambda c=code: on_key(c))
        root.add(node)
    return w


# The keyboard: (label, key code or None for a special key, width in key units)
_KEY_ROWS: list[list[tuple[str, float]]] = [
    [(c, 1) for c in "1234567890"],
    [(c, 1) for c in "qwertyuiop"],
    [(c, 1) for c in "asdfghjkl"],
    [("shift", 1.5)] + [(c, 1) for c in "zxcvbnm"] + [("delete", 1.5)],
    [("?123", 1.5), (",", 1), ("space", 5), (".", 1), ("enter", 1.5)],
]


def keyboard(geo: Geometry, press: Callable[[str], None]) -> Window:
    """Gboard-like: 43 keys, each a clickable node whose `text` is what it types."""
    w = Window(type="input_method", title="InputMethod", package=KEYBOARD_PACKAGE, layer=LAYER_KEYBOARD,
               bounds=geo.keyboard, sends_change_events=True)
    w.root.res = f"{KEYBOARD_PACKAGE}:id/keyboard_holder"
    top = geo.keyboard[1] + 12
    unit = geo.width / 10
    row_h = 144
    for r, row in enumerate(_KEY_ROWS):
        span = sum(width for _, width in row)
        x = (10 - span) * unit / 2
        y = top + r * row_h
        for label, width in row:
            right = x + width * unit
            node = Node("android.widget.FrameLayout", (round(x), y, round(right), y + row_h),
                        text=label if len(label) == 1 else None, desc=label, clickable=True,
                        res=f"{KEYBOARD_PACKAGE}:id/key_pos_{r}_{len(w.root.children)}")
            node.on_click = (lambda k=label: press(k))
            w.root.add(node)
            x = right
    return w


def key_label_for_char(ch: str) -> tuple[str, bool] | None:
    """The keyboard key that types `ch`, and whether shift is needed; None when no key does."""
    if ch.isascii() and ch.isalpha():
        return ch.lower(), ch.isupper()
    if ch.isascii() and ch.isdigit() or ch in ",.":
        return ch, False
    if ch == " ":
        return "space", False
    return None


_PROMPT_MESSAGES = {
    "camera": "Allow Compose fixture to take pictures and record video?",
    "location": "Allow Compose fixture to access this device\u2019s location?",
    "notifications": "Allow Compose fixture to send you notifications?",
    "microphone": "Allow Compose fixture to record audio?",
}

#: the prompt's buttons by the user's choice they stand for (the choices of virtual/android/permissions.py):
#: the resource id (GrantPermissionsViewHandlerImpl's BUTTON_RES_ID_TO_NUM) and the label
PROMPT_BUTTONS = {
    "allow": ("permission_allow_button", "Allow"),
    "foreground": ("permission_allow_foreground_only_button", "While using the app"),
    "one_time": ("permission_allow_one_time_button", "Only this time"),
    "deny": ("permission_deny_button", "Don\u2019t allow"),
    "deny_and_dont_ask_again": ("permission_deny_and_dont_ask_again_button", "Don\u2019t allow"),
}


class PermissionGrants(Protocol):
    """What decides a runtime permission request: the device's permission controller
    (virtual/android/permissions.py), or `PromptAlways` for a UI model on its own."""

    def answer_without_prompt(self, group: str) -> str | None:
        """"granted" or "denied" when the request is answered at once; None when the prompt asks."""
        ...

    def choices(self, group: str) -> tuple[str, ...]:
        """The prompt's buttons (keys of PROMPT_BUTTONS), top to bottom."""
        ...

    def choose(self, group: str, choice: str) -> str:
        """The user chose (a button, or "cancel" for BACK): what the app hears."""
        ...


class PromptAlways:
    """A UI model without a device: every request shows the prompt and nothing is remembered."""

    def answer_without_prompt(self, group: str) -> str | None:
        return None

    def choices(self, group: str) -> tuple[str, ...]:
        return ("foreground", "one_time", "deny")

    def choose(self, group: str, choice: str) -> str:
        return "granted" if choice in ("allow", "foreground", "one_time") else "denied"


def permission_prompt(geo: Geometry, permission: str, choices: Sequence[str], answer: Callable[[str], None]) -> Window:
    """The permission controller's dialog: modal, owned by the permission controller, sends events;
    a tap on a button answers with its choice."""
    left, right = geo.dp(24), geo.width - geo.dp(24)
    top = geo.height // 2 - 420
    w = Window(type="application", title="Permission", package=PERMISSION_CONTROLLER, layer=LAYER_PROMPT,
               bounds=(left, top, right, top + 840), sends_change_events=True,
               modal=True)
    rid = "com.android.permissioncontroller:id/"
    w.root.res = rid + "grant_dialog"
    w.root.add(Node("android.widget.ImageView", (left + 450, top + 60, left + 530, top + 140),
                    desc=permission, res=rid + "permission_icon"))
    message = _PROMPT_MESSAGES.get(permission, f"Allow Compose fixture to use {permission}?")
    w.root.add(Node("android.widget.TextView", (left + 60, top + 170, right - 60, top + 330),
                    text=message, res=rid + "permission_message"))
    y = top + 380
    for choice in choices:
        res, label = PROMPT_BUTTONS[choice]
        node = Node("android.widget.Button", (left + 60, y, right - 60, y + 130), text=label, res=rid + res,
                    clickable=True, focusable=True)
        node.on_click = (lambda c=choice: answer(c))
        w.root.add(node)
        y += 140
    return w


def launcher(geo: Geometry, launch: Callable[[str], None]) -> Window:
    """The home screen shown while no app is in front; a View toolkit, so it sends events."""
    w = Window(type="application", title="Home", package=LAUNCHER_PACKAGE, layer=LAYER_APP,
               bounds=geo.app, sends_change_events=True)
    w.root.res = f"{LAUNCHER_PACKAGE}:id/launcher"
    workspace = w.root.add(Node("android.widget.FrameLayout", geo.content, res=f"{LAUNCHER_PACKAGE}:id/workspace"))
    icon = workspace.add(Node("android.widget.TextView", (60, 1900, 300, 2150), text="Compose fixture",
                              desc="Compose fixture", clickable=True, long_clickable=True, focusable=True))
    icon.on_click = (lambda: launch("dev.mobileagent.fixture"))
    settings = workspace.add(Node("android.widget.TextView", (320, 1900, 560, 2150), text="Settings",
                                  desc="Settings", clickable=True, long_clickable=True, focusable=True))
    settings.on_click = (lambda: launch("com.android.settings"))
    return w
