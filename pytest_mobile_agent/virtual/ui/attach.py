"""Plugging the UI model into a virtual device: its display, its activity manager, its package
manager and logcat.

`attach(ui, display, activity, packages, logcat)` installs the Compose fixture app with the
package manager, from its APK (`am start -S -n dev.mobileagent.fixture/.MainActivity --es tab Big`
starts it on a tab, `am force-stop` stops it, and HOME or BACK on the last activity bring the
launcher to the front there too), shows every other installed package as a plain window
(ui/plain.py), gives the display its content (render, touch, keys, text, the uiautomator dump),
lays the UI out for the display's size and rotation, and sends the model's log lines to logcat.
"""

from __future__ import annotations

import threading
from typing import Any
from xml.sax.saxutils import quoteattr

from pytest_mobile_agent.apk import build_apk
from pytest_mobile_agent.virtual.android.activity import ActivityManager
from pytest_mobile_agent.virtual.android.display import Display
from pytest_mobile_agent.virtual.android.logcat import Logcat
from pytest_mobile_agent.virtual.android.packages import PackageManager
from pytest_mobile_agent.virtual.android.permissions import GrantPermissions
from pytest_mobile_agent.virtual.kernel.numbers import is_decimal
from pytest_mobile_agent.virtual.ui import system
from pytest_mobile_agent.virtual.ui.emulator import EmulatorUi
from pytest_mobile_agent.virtual.ui.fixture import FIXTURE_MANIFEST, MAIN_ACTIVITY, PACKAGE, tab_of_link
from pytest_mobile_agent.virtual.ui.geometry import Geometry
from pytest_mobile_agent.virtual.ui.model import KEY_MAP, UiModel
from pytest_mobile_agent.virtual.ui.node import Node
from pytest_mobile_agent.virtual.ui.plain import PlainApp
from pytest_mobile_agent.virtual.ui.pointers import FrameMapper

COMPOSED_TIMEOUT_S = 2.0


class FixtureAppEntry:
    """The fixture app as the activity manager sees an installed app (`activity.App`)."""

    package = PACKAGE

    def __init__(self, model: EmulatorUi) -> None:
        self.model = model
        self._link_tab: str | None = None

    def has_activity(self, activity: str) -> bool:
        return activity in (PACKAGE + MAIN_ACTIVITY, MAIN_ACTIVITY)

    def open_data(self, url: str) -> None:
        """The intent's data (a deep link, `fixture://tab/List`): the tab it names, for the start
        that follows (fixture.tab_of_link)."""
        self._link_tab = tab_of_link(url)

    def start(self, activity: str, extras: dict[str, str]) -> None:
        """Start the activity and return once its first screen is composed, as the activity
        manager reports a launch complete when the first frame is drawn (`am start -W`). A deep
        link's tab wins over none named in the extras."""
        link_tab, self._link_tab = self._link_tab, None
        if link_tab is not None and "tab" not in extras:
            extras = {**extras, "tab": link_tab}
        self.model.start_app(extras)
        self.model.wait_composed(COMPOSED_TIMEOUT_S)

    def stop(self) -> None:
        self.model.stop_app()


class DisplayContent:
    """What the display shows and where its touches go: the UI model."""

    def __init__(self, model: UiModel) -> None:
        self.model = model
        self._frames = FrameMapper()

    def render(self, width: int | None = None, height: int | None = None) -> Any:
        return self.model.render(width, height)

    def touch(self, x: int, y: int, pressed: bool) -> None:
        """A touch injected through InputManager (`input tap`): handled before this returns."""
        self.model.touch(x, y, pressed)

    def touchscreen(self, x: int, y: int, pressed: bool, t_ms: float) -> threading.Event:
        """A touchscreen report at its kernel time: handed to the UI thread without waiting for it."""
        return self.model.post_touches([(x, y, pressed, t_ms)])

    def touchscreen_frame(self, contacts: list[tuple[int, int, int, bool]], t_ms: float) -> threading.Event:
        """A touchscreen frame of several contacts at its kernel time: InputReader's MotionEvents of it
        (ui/pointers.FrameMapper) handed to the UI thread without waiting for it."""
        return self.model.post_motions(self._frames.frame(contacts, t_ms))

    def now_ms(self) -> float:
        return self.model.now_ms()

    def focused_activity(self) -> str | None:
        """The activity the window manager names as the focus when it is not the resumed app's: the
        permission controller's GrantPermissionsActivity while its prompt shows (`pkg/full.Class`)."""
        return system.GRANT_PERMISSIONS_ACTIVITY if self.model.permission_prompt is not None else None

    def key(self, code: int | str, meta: int = 0) -> bool:
        """A key code, as a number or by name (`input keyevent 4`, `input keyevent KEYCODE_BACK`)."""
        number = key_code(code)
        return number is not None and self.model.key(number, meta)

    def dump_xml(self) -> str:
        """`uiautomator dump`: every window's tree in the dumper's XML, top-most window first."""
        with self.model.lock:
            rotation = 0 if self.model.geo.width < self.model.geo.height else 1
            parts = ["<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>", f'<hierarchy rotation="{rotation}">']
            for window in self.model.windows():
                _dump_node(window.root, 0, parts)
            parts.append("</hierarchy>")
        return "".join(parts)

    def text(self, text: str) -> bool:
        """`input text`: key events through the virtual keyboard's key map (`%s` is a space);
        characters no key types are dropped, as the platform's KeyCharacterMap drops them."""
        typed = False
        for ch in text.replace("%s", " "):
            if ch in KEY_MAP:
                typed = self.model.key(*KEY_MAP[ch]) or typed
        return typed


_KEY_NAMES = {"HOME": 3, "BACK": 4, "DPAD_UP": 19, "DPAD_DOWN": 20, "DPAD_LEFT": 21, "DPAD_RIGHT": 22,
              "COMMA": 55, "PERIOD": 56, "TAB": 61, "SPACE": 62, "ENTER": 66, "DEL": 67, "MINUS": 69,
              "AT": 77, "MENU": 82, "APP_SWITCH": 187, "FORWARD_DEL": 112}
_KEY_NAMES.update({str(i): 7 + i for i in range(10)})
_KEY_NAMES.update({chr(ord("A") + i): 29 + i for i in range(26)})


def key_code(code: int | str) -> int | None:
    """An Android key code from its number or its name (with or without `KEYCODE_`)."""
    if isinstance(code, int):
        return code
    word = code.strip().upper()
    if is_decimal(word):
        return int(word)
    return _KEY_NAMES.get(word.removeprefix("KEYCODE_"))


def attach(ui: EmulatorUi, display: Display, activity: ActivityManager, packages: PackageManager,
           logcat: Logcat) -> None:
    """Wire the device's UI model into its framework (see the module's docstring)."""
    ui.log = lambda tag, msg: logcat.log(tag, msg)
    display.set_content(DisplayContent(ui))
    ui.add_listener(lambda change: display.changed())
    ui.geometry_source = lambda: display_geometry(display)
    _install_fixture(ui, packages)
    component = f"{PACKAGE}/{MAIN_ACTIVITY}"

    def launch(package: str) -> None:
        # Settings is a system app: not in the activity manager's installed (third-party) apps
        if package == PACKAGE:
            activity.start(component)
        else:
            ui.settings.start()

    ui.on_launch = launch
    ui.on_home_shown = activity.go_home  # `dumpsys window` names the launcher after HOME or BACK


def _install_fixture(ui: EmulatorUi, packages: PackageManager) -> None:
    """The fixture app, installed from its APK as an emulator image with it installed would have
    it; a later install of an APK of the same package updates it and keeps this UI. Any other
    package gets a plain window."""
    packages.provide_ui(FixtureAppEntry(ui))
    packages.show_others_with(lambda manifest: PlainApp(ui, manifest))
    packages.install(build_apk(FIXTURE_MANIFEST))
    packages.verify_app_links(PACKAGE)  # its https App Link, verified as the image's verifier left it
    ui.permissions = GrantPermissions(packages, PACKAGE)


def display_geometry(display: Display) -> Geometry:
    """The display's logical geometry: its size (a `wm size` override first) turned by its
    rotation, and the density in effect."""
    width, height = display.size
    if display.rotation % 2 == 1:
        width, height = height, width
    return Geometry(width, height, display.density)


def _dump_node(node: Node, index: int, parts: list[str]) -> None:
    left, top, right, bottom = node.bounds
    attrs: dict[str, str | bool] = {
        "index": str(index), "text": node.shown_text(), "resource-id": node.res or "", "class": node.cls,
        "package": node.package, "content-desc": node.desc or "", "checkable": node.checkable,
        "checked": node.checked, "clickable": node.clickable, "enabled": node.enabled,
        "focusable": node.focusable, "focused": node.focused, "scrollable": node.scrollable,
        "long-clickable": node.long_clickable, "password": node.password, "selected": node.selected,
        "bounds": f"[{left},{top}][{right},{bottom}]",
    }
    text = " ".join(f"{k}={quoteattr(str(v).lower() if isinstance(v, bool) else v)}" for k, v in attrs.items())
    if not node.children:
        parts.append(f"<node {text} />")
        return
    parts.append(f"<node {text}>")
    for i, child in enumerate(node.children):
        _dump_node(child, i, parts)
    parts.append("</node>")
