"""The Compose fixture app `dev.mobileagent.fixture`: tabs Login, List and Big, the Loading
screen (`--es tab Loading`, not in the tab row: a spinner that never stops, `virtual/ui/spinner.py`),
the Search screen (`--es tab Search`, not in the tab row either: a search field with the IME
action "search" and a field the keyboard covers, `virtual/ui/search_screen.py`), the Feed
(`--es tab Feed`, not in the tab row either: a photo feed that drops frames when scrolled,
`virtual/ui/feed.py`) and the Audit screen
(`--es tab Audit`, not in the tab row either: content with accessibility defects,
`virtual/ui/audit_screen.py`).

Compose sends no change events, so the app's windows (its main window and its in-app alert) say
`sends_change_events: false`. A tab switch tears the old screen down at once (its nodes are gone,
and the new screen's nodes get new ids) and composes the new one after a short model time.

Node counts of the app's main window: 10 for the frame (decor view, the Compose root, the title,
the tab row, 3 tabs with an icon each), plus the screen. The Big screen has 553: its container,
a header, the grid, 50 rows and 500 cells; with the status bar (6) and the navigation bar (4) the
whole snapshot of the Big tab is 573 nodes.

The Login screen behaves as the app does on a device:

* the password field is a password field: its node says `password: true` and its text is the
  PasswordVisualTransformation's dots (one U+2022 per character), what Android's accessibility
  nodes give for a password (TextView.getTextForAccessibility returns the transformed text;
  Compose's editableText semantics is the transformed text), so the typed text is in no tree,
  dump or artifact; the app itself keeps what was typed;
* Login with the wrong password (anything but PASSWORD) shows "Wrong password" under the fields
  (`login_error`) and signs nobody in; the right one clears it and shows the Welcome alert;
* the signed-in user lives in the app's process (a process-wide session, not the activity's state):
  HOME, BACK and a relayout keep it, a force-stop, a crash or `pm clear` (`FixtureApp.kill`) end
  it, so the next start shows "Signed out";
* BACK: while the keyboard is up, the first BACK goes to the IME, which hides itself
  (ViewRootImpl's ImeInputStage hands key events to the IME before the app, and
  InputMethodService.onKeyDown/handleBack consume KEYCODE_BACK to hide the window), so a second
  BACK reaches the app. But when the in-app alert appears, the dialog's window takes the focus
  without a text editor, and the IME hides itself (ImeVisibilityStateComputer, for a
  SOFT_INPUT_STATE_UNSPECIFIED window gaining focus with no editor focused:
  HIDE_UNSPECIFIED_WINDOW), so one BACK closes the alert even after typing into a field. The
  app's own order is: the alert first, else the activity finishes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from pytest_mobile_agent.apk import Activity, LinkFilter, Manifest
from pytest_mobile_agent.virtual.ui import audit_screen, feed, gesture_screen, search_screen, spinner
from pytest_mobile_agent.virtual.ui.fixture_web import WebSignIn
from pytest_mobile_agent.virtual.ui.node import Node, ScrollInfo, Window
from pytest_mobile_agent.virtual.ui.system import LAYER_ALERT, LAYER_APP

if TYPE_CHECKING:
    from pytest_mobile_agent.virtual.ui.model import UiModel

PACKAGE = "dev.mobileagent.fixture"
MAIN_ACTIVITY = ".MainActivity"
TABS = ("Login", "List", "Big")
SCREENS = (*TABS, spinner.SCREEN, search_screen.SCREEN, feed.SCREEN,  # not in the tab row
           gesture_screen.SCREEN, audit_screen.SCREEN)
BIG_CELLS = 500
BIG_COLUMNS = 10
LIST_ITEMS = 100
FRAME_NODES = 10
#: model milliseconds from a tab's selection (or the app's start) to its screen being composed
COMPOSE_MS = {"Login": 40.0, "List": 60.0, "Big": 180.0, spinner.SCREEN: 40.0, search_screen.SCREEN: 40.0,
              feed.SCREEN: 90.0, gesture_screen.SCREEN: 40.0, audit_screen.SCREEN: 40.0}
LAUNCH_MS = 120.0
PASSWORD = "correct horse"  # the password the fixture accepts (examples/test_login.py signs in with it)
#: model milliseconds from the Login screen's composition, after a tap on its tab, to its late button
#: ("Continue as guest", as an app shows once a request it made on the switch has answered)
LATE_BUTTON_MS = 300.0
GUEST_TOAST = "Continuing as guest"
#: the Login screen's button that opens the web sign-in (ui/fixture_web.py), below the late button's place
WEB_SIGN_IN_BUTTON = "Sign in on the web"
WEB_SIGN_IN_TOP = 1657
WRONG_PASSWORD = "Wrong password"

#: the manifest of the fixture app's APK as the emulator image has it installed (versionCode 1);
#: tests build newer ones with dataclasses.replace and `apk.build_apk`
#: the app's deep links, routed to a tab (`tab_of_link`): its own scheme, and an https App Link
#: (`android:autoVerify`, verified on the image) for a host of its own
LINK_SCHEME = "fixture"
LINK_HOST = "fixture.example"
LINK_PATH = "/tab/"
FIXTURE_LINKS = (
    LinkFilter(schemes=(LINK_SCHEME,), hosts=("tab",)),
    LinkFilter(schemes=("https",), hosts=(LINK_HOST,), path_prefixes=(LINK_PATH,), auto_verify=True),
)
FIXTURE_MANIFEST = Manifest(
    package=PACKAGE, version_code=1, version_name="1.0", min_sdk=24, target_sdk=36, label="Compose fixture",
    activities=(Activity(PACKAGE + MAIN_ACTIVITY, exported=True, launcher=True, links=FIXTURE_LINKS),),
    permissions=tuple(f"android.permission.{name}" for name in (
        "CAMERA", "RECORD_AUDIO", "ACCESS_FINE_LOCATION", "ACCESS_COARSE_LOCATION", "ACCESS_BACKGROUND_LOCATION",
        "POST_NOTIFICATIONS", "INTERNET")),
)


class ListScroller:
    """The List tab's LazyColumn: 100 items, only the visible ones in the tree."""

    def __init__(self, app: FixtureApp, container: Node) -> None:
        self.app = app
        self.container = container
        self.item_height = app.model.geo.dp(56)
        self._offset = 0.0
        self._items: dict[int, Node] = {}
        self.layout()

    def offset(self) -> float:
        return self._offset

    def max_offset(self) -> float:
        top, bottom = self.container.bounds[1], self.container.bounds[3]
        return max(0.0, LIST_ITEMS * self.item_height - (bottom - top))

    def scroll_to(self, offset: float) -> None:
        offset = min(self.max_offset(), max(0.0, offset))
        if offset == self._offset:
            return
        self._offset = offset
        self.layout()
        self.app.content_changed([self.container], ("scroll",))

    def layout(self) -> None:
        """Compose the visible items: keep the nodes of items still shown, add the new ones."""
        left, top, right, bottom = self.container.bounds
        h = self.item_height
        first = int(self._offset // h)
        last = min(LIST_ITEMS - 1, int((self._offset + (bottom - top) - 1) // h))
        shown: dict[int, Node] = {}
        for index in range(first, last + 1):
            y = top + index * h - round(self._offset)
            bounds = (left, max(top, y), right, min(bottom, y + h))
            node = self._items.get(index)
            if node is None:
                node = self._item(index, bounds)
            node.bounds = bounds
            node.layout_bounds = (left, y, right, y + h) if bounds[1:4:2] != (y, y + h) else None
            shown[index] = node
        self._items = shown
        self.container.children = []
        for index in sorted(shown):
            self.container.add(shown[index])
        self.container.scroll = ScrollInfo(vertical=True, can_back=self._offset > 0,
                                           can_forward=self._offset < self.max_offset(),
                                           items=LIST_ITEMS, first=first, last=last)

    def _item(self, index: int, bounds: tuple[int, int, int, int]) -> Node:
        node = Node("android.widget.TextView", bounds, text=f"Item {index + 1}", res=f"item_{index + 1}",
                    package=PACKAGE, clickable=True, long_clickable=True, focusable=True)

        def toggle() -> None:
            node.selected = not node.selected
            self.app.content_changed([node], ("state",))

        node.on_long_click = toggle
        node.on_click = toggle
        return node


class FixtureApp:
    """The app's state and windows; the model calls `start`, `stop` and `back`."""

    package = PACKAGE
    activities = (MAIN_ACTIVITY,)

    def __init__(self, model: UiModel) -> None:
        self.model = model
        self.window: Window | None = None
        self.alert: Window | None = None
        self.tab = "Login"
        self.composed = False
        self.list: ListScroller | None = None
        self.signed_in_as: str | None = None
        self.permission_results: dict[str, str] = {}
        self._screen: Node | None = None
        self._generation = 0
        #: `--es spin_ms N`: the Loading screen's spinner stops after N model ms (None: never)
        self.spin_ms: float | None = None
        #: the web sign-in activity while it is open (ui/fixture_web.py)
        self.web_sign_in: WebSignIn | None = None
        #: WebView.setWebContentsDebuggingEnabled, process-wide (`--es web_debugging on|off`)
        self.web_debugging = True
        self._status_node: Node | None = None

    # --- lifecycle ----------------------------------------------------------------------------

    @property
    def running(self) -> bool:
        return self.window is not None

    def start(self, extras: Mapping[str, str] | None = None) -> None:
        """`am start -n dev.mobileagent.fixture/.MainActivity [--es tab Big] [--es prompt camera]`: the
        prompt extra asks for a permission group (camera, microphone, location, notifications), as the
        "Use camera" button asks for the camera; the answer lands in `permission_results`."""
        extras = dict(extras or {})
        tab = extras.get("tab", "Login")
        tab = next((t for t in SCREENS if t.lower() == tab.lower()), "Login")
        self.spin_ms = _milliseconds(extras.get("spin_ms"))
        if "web_debugging" in extras:
            self.web_debugging = extras["web_debugging"].lower() != "off"
        if self.window is None:
            self.window = self._frame()
            self.model.add_window(self.window)
            self.model.log("ActivityTaskManager", f"START u0 {{cmp={PACKAGE}/{MAIN_ACTIVITY}}}")
            self._select(tab, LAUNCH_MS)
        else:
            self.model.bring_to_front(self.window)
            if tab != self.tab or "tab" in extras:
                self._select(tab, 0.0)
        prompt = extras.get("prompt")
        if prompt:
            self.model.request_permission(prompt, self.permission_answered)

    def stop(self) -> None:
        """Every window of the app goes, the nodes with them (HOME, BACK, a relayout); the process
        and what it holds in memory stay (`kill`)."""
        self._generation += 1
        if self.web_sign_in is not None:
            self.web_sign_in.finish()
        if self.alert is not None:
            self.model.remove_window(self.alert)
            self.alert = None
        window, self.window = self.window, None
        if window is not None:
            self.model.clear_focus_in(window)
            self.model.remove_window(window)
        self.model.dismiss_permission()
        self.composed = False
        self.list = None
        self._screen = None
        self._status_node = None

    def kill(self) -> None:
        """The app's process ends (`am force-stop`, `am crash`, `pm clear`, as ActivityManagerService.
        forceStopPackage kills it): its windows go, and with its memory the signed-in user, the
        permission answers it heard and the tab it was on. The app stores nothing on disk."""
        self.stop()
        self.tab = "Login"
        self.signed_in_as = None
        self.permission_results = {}
        self.spin_ms = None
        self.web_debugging = True

    def owns(self, window: Window) -> bool:
        web = self.web_sign_in
        return window is self.window or window is self.alert or (web is not None and window is web.window)

    def relaunch_extras(self) -> Mapping[str, str]:
        """The activity is recreated on its tab."""
        return {"tab": self.tab}

    def back(self) -> bool:
        """The back key: close the alert, else finish the activity in front (the web sign-in's,
        then the main one). True when consumed."""
        if self.alert is not None:
            self.dismiss_alert()
            return True
        if self.web_sign_in is not None:
            self.web_sign_in.finish()
            return True
        if self.window is not None:
            self.stop()
            return True
        return False

    # --- the frame and the tabs ---------------------------------------------------------------

    def _frame(self) -> Window:
        geo = self.model.geo
        w = Window(type="application", title="Compose fixture", package=PACKAGE, layer=LAYER_APP,
                   bounds=geo.app, sends_change_events=False)
        w.root.res = None
        compose = w.root.add(Node("android.view.View", geo.app, visible=False))
        compose.add(Node("android.widget.TextView", geo.title_bar, text="Compose fixture", res="title"))
        row = compose.add(Node("android.view.View", geo.tab_row, res="tabs"))
        width = geo.width // len(TABS)
        top, bottom = geo.tab_row[1], geo.tab_row[3]
        for i, name in enumerate(TABS):
            # Compose's Tab gives its node the role description "Tab" (androidx.compose.ui's
            # AndroidComposeViewAccessibilityDelegateCompat, for Role.Tab)
            tab = row.add(Node("android.widget.TextView", (i * width, top, (i + 1) * width, bottom), text=name,
                               res=f"tab_{name.lower()}", clickable=True, focusable=True, role="Tab"))
            tab.add(Node("android.widget.ImageView", (i * width + width // 2 - 36, top + 12,
                                                      i * width + width // 2 + 36, top + 60)))
            tab.on_click = (lambda n=name: self._select(n, 0.0, tapped=True))
        self._compose_root = compose
        self._tab_nodes = {name: row.children[i] for i, name in enumerate(TABS)}
        return w

    def _select(self, tab: str, extra_ms: float, *, tapped: bool = False) -> None:
        """Tear the current screen down now; compose `tab` after its model time. Login reached by a
        tap on its tab shows its late button LATE_BUTTON_MS after that."""
        assert self.window is not None
        self._generation += 1
        generation = self._generation
        self.tab = tab
        self.composed = False
        self.list = None
        self.model.clear_focus_in(self.window)
        if self._screen is not None:
            self._compose_root.children.remove(self._screen)
            self._screen = None
        self._status_node = None
        for name, node in self._tab_nodes.items():
            node.selected = name == tab
        self.content_changed([self._compose_root], ("structure",))

        def compose() -> None:
            if generation == self._generation and self.window is not None:
                self._compose(tab)
                if tapped and tab == "Login":
                    self.model.schedule(LATE_BUTTON_MS, late_button)

        def late_button() -> None:
            if generation == self._generation and self._screen is not None:
                self._late_button(self._screen)

        self.model.schedule(extra_ms + COMPOSE_MS[tab], compose)

    def _compose(self, tab: str) -> None:
        screen = Node("android.view.View", self.model.geo.content, res=f"screen_{tab.lower()}", package=PACKAGE)
        {"Login": self._login, "List": self._list, "Big": self._big, spinner.SCREEN: self._loading,
         search_screen.SCREEN: self._search, feed.SCREEN: self._feed,
         gesture_screen.SCREEN: self._gestures, audit_screen.SCREEN: self._audit}[tab](screen)
        self._compose_root.add(screen)
        self._screen = screen
        self.composed = True
        self.content_changed([self._compose_root], ("structure",))

    def content_changed(self, nodes: list[Node], kinds: tuple[str, ...]) -> None:
        if self.window is not None:
            self.model.nodes_changed(self.window, nodes, kinds)

    # --- screens ------------------------------------------------------------------------------

    def _login(self, screen: Node) -> None:
        geo = self.model.geo
        left, right = geo.dp(24), geo.width - geo.dp(24)
        y = screen.bounds[1] + 44
        screen.add(Node("android.widget.TextView", (left, y, right, y + 100), text="Sign in", res="login_heading"))
        y += 140
        fields = {}
        for res, hint, password, direct in (("username", "Username", False, True),
                                            ("password", "Password", True, True),
                                            ("invite_code", "Invite code", False, False)):
            field = screen.add(Node("android.widget.EditText", (left, y, right, y + 147), text="", hint=hint,
                                    res=res, clickable=True, focusable=True, editable=True, password=password,
                                    long_clickable=True, accepts_set_text=direct))
            field.on_click = (lambda f=field: self.model.focus(f))
            fields[res] = field
            y += 187
        y += 20
        login = screen.add(Node("android.widget.Button", (left, y, right, y + 147), text="Login",
                                res="login_button", clickable=True, focusable=True))
        y += 187
        camera = screen.add(Node("android.widget.Button", (left, y, right, y + 147), text="Use camera",
                                 res="camera_button", clickable=True, focusable=True))
        y += 187
        status = screen.add(Node("android.widget.TextView", (left, y, right, y + 84),
                                 text=self._status_text(), res="login_status"))
        self._status_node = status
        y += 104
        error_bounds = (left, y, right, y + 84)

        def sign_in() -> None:
            error = next((n for n in screen.children if n.res == "login_error"), None)
            if fields["password"].text != PASSWORD:
                if error is None:
                    error = screen.add(Node("android.widget.TextView", error_bounds, text=WRONG_PASSWORD,
                                            res="login_error", package=PACKAGE))
                    self.content_changed([screen], ("structure",))
                return
            if error is not None:
                screen.children.remove(error)
                self.content_changed([screen], ("structure",))
            self.sign_in_as(fields["username"].text or "guest")

        login.on_click = sign_in
        camera.on_click = (lambda: self.model.request_permission("camera", self.permission_answered))
        web_top = screen.bounds[1] + WEB_SIGN_IN_TOP
        web = screen.add(Node("android.widget.Button", (left, web_top, right, web_top + 147), text=WEB_SIGN_IN_BUTTON,
                              res="web_sign_in_button", package=PACKAGE, clickable=True, focusable=True))
        web.on_click = self.open_web_sign_in

    def sign_in_as(self, name: str) -> None:
        """The user is signed in: the status line says so and the Welcome alert greets them."""
        self.signed_in_as = name
        if self._status_node is not None:
            self._status_node.text = self._status_text()
            self.content_changed([self._status_node], ("text",))
        self.show_alert("Signed in", f"Welcome, {self.signed_in_as}")

    def open_web_sign_in(self) -> None:
        """The web sign-in activity comes to the front (ui/fixture_web.py)."""
        if self.web_sign_in is not None:
            self.model.bring_to_front(self.web_sign_in.window)
            return
        self.web_sign_in = WebSignIn(self.model, PACKAGE, self.sign_in_as, self._web_sign_in_finished,
                                     debuggable=self.web_debugging)
        self.web_sign_in.show()

    def _web_sign_in_finished(self, web: WebSignIn) -> None:
        if self.web_sign_in is web:
            self.web_sign_in = None

    def _late_button(self, screen: Node) -> None:
        geo = self.model.geo
        left, right = geo.dp(24), geo.width - geo.dp(24)
        top = screen.bounds[1] + 1470  # below the status line and the error's place
        button = screen.add(Node("android.widget.Button", (left, top, right, top + 147), text="Continue as guest",
                                 res="late_button", package=PACKAGE, clickable=True, focusable=True))
        button.on_click = (lambda: self.model.toasts.show(PACKAGE, GUEST_TOAST))
        self.content_changed([screen], ("structure",))

    def _status_text(self) -> str:
        return f"Signed in as {self.signed_in_as}" if self.signed_in_as else "Signed out"

    def _list(self, screen: Node) -> None:
        container = screen.add(Node("android.view.View", screen.bounds, res="list", scrollable=True,
                                    package=PACKAGE))
        self.list = ListScroller(self, container)
        container.scroller = self.list

    def _big(self, screen: Node) -> None:
        left, top, right, bottom = screen.bounds
        screen.add(Node("android.widget.TextView", (left, top, right, top + 84), text=f"{BIG_CELLS} cells",
                        res="big_header"))
        grid = screen.add(Node("android.view.View", (left, top + 84, right, bottom), res="big_grid"))
        rows = BIG_CELLS // BIG_COLUMNS
        row_h = (bottom - top - 84) // rows
        cell_w = (right - left) // BIG_COLUMNS
        for r in range(rows):
            y = top + 84 + r * row_h
            row = grid.add(Node("android.view.View", (left, y, right, y + row_h)))
            for c in range(BIG_COLUMNS):
                n = r * BIG_COLUMNS + c + 1
                bounds = (left + c * cell_w, y, left + (c + 1) * cell_w, y + row_h)
                cell = row.add(Node("android.widget.TextView", bounds,
                                    text=f"Cell {n}", res=f"cell_{n}", clickable=True))
                cell.on_click = (lambda node=cell: self._toggle(node))

    def _loading(self, screen: Node) -> None:
        assert self.window is not None
        generation = self._generation
        spinner.loading_screen(self.model, self.window, screen, self.spin_ms,
                               alive=lambda: generation == self._generation and self.window is not None,
                               on_loaded=lambda nodes: self.content_changed(nodes, ("structure",)))

    def _search(self, screen: Node) -> None:
        generation = self._generation
        search_screen.search_screen(self.model, screen,
                                    alive=lambda: generation == self._generation and self.window is not None,
                                    changed=lambda nodes: self.content_changed(nodes, ("structure",)))

    def _feed(self, screen: Node) -> None:
        """The Feed screen (ui/feed.py): a photo feed that drops frames when scrolled."""
        assert self.window is not None
        feed.feed_screen(self.model, self.window, screen, PACKAGE, self.content_changed)

    def _gestures(self, screen: Node) -> None:
        """The Gestures screen (ui/gesture_screen.py): a zoomable picture and a reorderable list."""
        assert self.window is not None
        gesture_screen.gestures_screen(self.model, self.window, screen, self.content_changed, PACKAGE)

    def _audit(self, screen: Node) -> None:
        audit_screen.audit_screen(self.model.geo, screen, PACKAGE)
        for node in screen.walk():
            if node.editable:
                node.on_click = (lambda f=node: self.model.focus(f))

    def _toggle(self, node: Node) -> None:
        node.selected = not node.selected
        self.content_changed([node], ("state",))

    # --- the in-app alert and the permission answer -------------------------------------------

    def show_alert(self, title: str, message: str) -> None:
        """Compose's AlertDialog: a modal window of the app that sends no change events."""
        if self.alert is not None:
            self.model.remove_window(self.alert)
        geo = self.model.geo
        left, right = geo.dp(34), geo.width - geo.dp(34)
        top = geo.height // 2 - 250
        w = Window(type="application", title=title, package=PACKAGE, layer=LAYER_ALERT,
                   bounds=(left, top, right, top + 500), sends_change_events=False, modal=True)
        w.root.res = None
        pane = w.root.add(Node("android.view.View", w.bounds, res="alert", package=PACKAGE))
        pane.add(Node("android.widget.TextView", (left + 60, top + 50, right - 60, top + 140), text=title,
                      res="alert_title"))
        pane.add(Node("android.widget.TextView", (left + 60, top + 160, right - 60, top + 300), text=message,
                      res="alert_message"))
        ok = pane.add(Node("android.widget.Button", (right - 300, top + 350, right - 60, top + 460), text="OK",
                           res="alert_ok", clickable=True, focusable=True))
        ok.on_click = self.dismiss_alert
        self.alert = w
        self.model.hide_keyboard()  # the dialog takes the focus with no editor: HIDE_UNSPECIFIED_WINDOW
        self.model.add_window(w)

    def dismiss_alert(self) -> None:
        if self.alert is not None:
            self.model.remove_window(self.alert)
            self.alert = None

    def permission_answered(self, permission: str, verdict: str) -> None:
        self.permission_results[permission] = verdict


def tab_of_link(url: str) -> str | None:
    """The tab a deep link names, as the app's MainActivity reads its intent's data:
    `fixture://tab/List` and `https://fixture.example/tab/List` open List (a tab's name in any
    case); a link the app declares but naming no tab it has opens it where it starts (None)."""
    parts = urlsplit(url)
    if parts.scheme == LINK_SCHEME and parts.hostname == "tab":
        name = parts.path.strip("/")
    elif parts.scheme == "https" and parts.hostname == LINK_HOST and parts.path.startswith(LINK_PATH):
        name = parts.path[len(LINK_PATH):].strip("/")
    else:
        return None
    return next((tab for tab in TABS if tab.lower() == name.lower()), None)


def _milliseconds(value: str | None) -> float | None:
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None
