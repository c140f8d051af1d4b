"""The UI model of the virtual device: its windows, input handling, timers and change notices.

One lock guards everything; every public method takes it and first runs the timers that fell due
(`advance`), so the model is lazily up to date whenever anyone looks at it: composition after a tab
switch, flings, long presses and the status bar clock all run on the model clock without a thread.
A reader that wants notices in real time (the agent double) waits until `next_due_ms()` and calls
`advance()`. What a touch is (a tap, a long press, a drag, a fling) and when the status bar clock
ticks are decided on the times the model gives them, by `touch.TouchGesture` and
`status_clock.StatusClock`; the model posts the timers, hit-tests, scrolls and clicks.
"""

from __future__ import annotations

import functools
import itertools
import logging
import math
import threading
import weakref
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from pytest_mobile_agent.virtual.ui import accessibility, system, text_toolbar
from pytest_mobile_agent.virtual.ui import clipboard as clips
from pytest_mobile_agent.virtual.ui.apps import UiApp
from pytest_mobile_agent.virtual.ui.changes import Change, Listener, NodesChanged, WindowsChanged
from pytest_mobile_agent.virtual.ui.clock import Clock, MonotonicClock
from pytest_mobile_agent.virtual.ui.geometry import Geometry
from pytest_mobile_agent.virtual.ui.gestures import Fling
from pytest_mobile_agent.virtual.ui.injection import WINDOW_ANIMATION_MS
from pytest_mobile_agent.virtual.ui.looper import DISPATCHER, InputInbox, MessageQueue
from pytest_mobile_agent.virtual.ui.node import Bounds, Node, Window
from pytest_mobile_agent.virtual.ui.render import Animation, render
from pytest_mobile_agent.virtual.ui.status_clock import StatusClock
from pytest_mobile_agent.virtual.ui.toasts import Toasts
from pytest_mobile_agent.virtual.ui.touch import FLING_FRAME_MS, Lift, TouchGesture, fling_goes_on

if TYPE_CHECKING:
    from PIL import Image

log = logging.getLogger("pytest_mobile_agent.virtual")

TouchEvent = tuple[int, int, bool, float | None]
"""One touchscreen event: x, y, pressed (down or move) or not (up), its event time (model ms; None: now)."""

# (key code, shift) -> character, as the virtual keyboard's KeyCharacterMap types them (US layout)
_UNSHIFTED = {**{system.KEYCODE_0 + i: str(i) for i in range(10)},
              **{system.KEYCODE_A + i: chr(ord("a") + i) for i in range(26)},
              55: ",", 56: ".", 62: " ", 68: "`", 69: "-", 70: "=", 71: "[", 72: "]", 73: "\\",
              74: ";", 75: "'", 76: "/", 77: "@", 81: "+", 17: "*", 18: "#"}
_SHIFTED = {**{system.KEYCODE_A + i: chr(ord("A") + i) for i in range(26)},
            7: ")", 8: "!", 9: "@", 10: "#", 11: "$", 12: "%", 13: "^", 14: "&", 15: "*", 16: "(",
            55: "<", 56: ">", 68: "~", 69: "_", 70: "+", 71: "{", 72: "}", 73: "|", 74: ":", 75: '"', 76: "?"}
KEY_MAP: dict[str, tuple[int, int]] = {}
for _code, _ch in _SHIFTED.items():
    KEY_MAP.setdefault(_ch, (_code, system.META_SHIFT_ON))
for _code, _ch in _UNSHIFTED.items():
    KEY_MAP[_ch] = (_code, 0)  # an unshifted key wins where both type the character


class UiModel:
    """Everything on the screen of one virtual device."""

    def __init__(self, clock: Clock | None = None, geometry: Geometry | None = None, *,
                 ticker: bool | None = None) -> None:
        self.lock = threading.RLock()
        self.clock: Clock = clock or MonotonicClock()
        #: run due timers on a thread of their own while any are pending (the real clock's default),
        #: so a composition or fling started by a touch lands without anyone reading the model
        self._ticker_enabled = isinstance(self.clock, MonotonicClock) if ticker is None else ticker
        self._ticker: threading.Thread | None = None
        self._ticker_cond = threading.Condition(self.lock)
        self.geo = geometry or Geometry()
        self.clip: clips.Clip | None = None
        #: ClipboardService's primaryClipUid and mNotifiedUids, by package: who set the clip, and
        #: who was shown the access toast for it
        self._clip_owner: str | None = None
        self._clip_notified: set[str] = set()
        #: KeyguardManager.isDeviceLocked (set by the device: a secure keyguard showing)
        self.device_locked: Callable[[], bool] = lambda: False
        #: Settings.Secure.clipboard_show_access_notifications (set by the device; on by default)
        self.clipboard_access_notifications: Callable[[], bool] = lambda: True
        #: the apps' labels by package, for the access toast (set by the device)
        self.app_labels: dict[str, str] = {}
        #: the shell's clip sets are dropped without a word: ClipboardService.checkAndSetPrimaryClip
        #: returns when clipboardAccessAllowed(OP_WRITE_CLIPBOARD) refuses (the app op set to ignore)
        self.shell_clip_writes_ignored = False
        #: the app's UI thread is busy: keys are held until it is free (set_app_busy)
        self._app_busy = False
        self._held_keys: list[Callable[[], None]] = []
        #: the toasts apps show: accessibility events only, never a window (ui/toasts.py)
        self.toasts = Toasts(self.clock)
        #: an emulator (ro.boot.qemu): SystemUI honours the suppress extra from any source
        self.emulator = True
        self._clipboard_overlay: Window | None = None
        #: the floating text toolbar a long press on a field showed (ui/text_toolbar.py), and its field
        self._text_toolbar: tuple[Window, Node] | None = None
        self.log: Callable[[str, str], None] = lambda tag, msg: None
        #: set by the device: starting the app from the launcher goes through the activity manager
        self.on_launch: Callable[[str], None] | None = None
        #: set by the device: a key brought the home screen to the front (HOME, or BACK finishing
        #: the last activity), so the activity manager's resumed activity follows
        self.on_home_shown: Callable[[], None] | None = None
        #: set by the device: its permission controller, which answers a request or says what the
        #: prompt offers, and records the user's choice (virtual/android/permissions.py)
        self.permissions: system.PermissionGrants = system.PromptAlways()
        #: set by the device: the display's logical size and density now (rotation, `wm size`,
        #: `wm density`); the model lays itself out again when it changes
        self.geometry_source: Callable[[], Geometry] | None = None
        self.render_cache: dict[tuple[int, int, int], Image.Image] = {}
        #: what is drawn afresh over its window's cached pixels on every render (the Loading
        #: screen's spinner): `window`, `draw(image)`
        self.animations: list[Animation] = []
        self._listeners: list[Listener] = []  # copied on write
        self._listeners_lock = threading.Lock()
        #: timers and injected input, handled in model-time order (ui/looper.py)
        self._queue = MessageQueue()
        #: touches from the touchscreen, stamped on arrival, waiting for the lock (post_touches)
        self._inbox = InputInbox()
        self._windows: list[Window] = []
        self._order = itertools.count()
        self._stack_seq: dict[int, int] = {}
        self._focused: Node | None = None
        self._focused_window: Window | None = None
        self._pointer: TouchGesture | None = None
        self._pointer_window: Window | None = None
        self._scroll_node: Node | None = None
        self._fling: Fling | None = None
        self._fling_node: Node | None = None
        self._shift = False
        self._animations_end_ms = -math.inf
        self._prompt: Window | None = None
        self._prompt_answer: Callable[[str, str], None] | None = None
        self._prompt_permission = ""
        self._status_clock = StatusClock(self.clock.wall())
        self.status_icons = system.DEFAULT_STATUS_ICONS
        self.status_bar = system.status_bar(self.geo, self.clock.wall(), self.status_icons)
        self.nav_bar = system.nav_bar(self.geo, lambda code: self._key(code, 0))
        self.keyboard = system.keyboard(self.geo, self._keyboard_press)
        self.launcher = system.launcher(self.geo, self._launch_from_home)
        #: the apps registered with the model (ui/apps.py), the first the one BACK goes to when no
        #: registered app's window is in front
        self._apps: list[UiApp] = []
        for w in (self.status_bar, self.nav_bar, self.launcher):
            self._insert(w)
        self._restack()

    # --- listeners and timers -------------------------------------------------------------------

    def add_listener(self, listener: Listener) -> None:
        """Listeners are called with the model's lock held: they must be quick and must not wait
        for another thread that may want the model."""
        with self._listeners_lock:
            self._listeners = [*self._listeners, listener]

    def remove_listener(self, listener: Listener) -> None:
        """Safe from any thread and under any lock (a process's death callbacks run under the
        device's kernel lock): it never takes the model's lock."""
        with self._listeners_lock:
            # == : a bound method is made anew at each access
            self._listeners = [entry for entry in self._listeners if entry != listener]

    def _notify(self, change: Change) -> None:
        for listener in self._listeners:
            try:
                listener(change)
            except Exception:  # a listener's bug must not break the UI
                log.exception("UI listener failed")

    def now_ms(self) -> float:
        return self.clock.now_ms()

    def schedule(self, delay_ms: float, fn: Callable[[], None]) -> object:
        """Run `fn` after `delay_ms` of model time; returns the token `unschedule` takes."""
        with self.lock:
            return self._post(self.clock.now_ms() + delay_ms, fn)

    def unschedule(self, token: object) -> None:
        """Drop a timer that has not run yet (View.removeCallbacks)."""
        with self.lock:
            self._queue.remove(token)

    def _post(self, when: float, fn: Callable[[], None]) -> object:
        """Queue `fn` to run at model time `when`, in order with every other timer and input event
        (the model's lock is held)."""
        token = self._queue.post(when, fn)
        if self._ticker_enabled:
            if self._ticker is None or not self._ticker.is_alive():
                self._ticker = threading.Thread(target=self._tick, name="ui-timers", daemon=True)
                self._ticker.start()
            else:
                self._ticker_cond.notify_all()
        return token

    def _tick(self) -> None:
        """Run timers as they fall due; end once none is pending (a new one starts another)."""
        with self.lock:
            while (when := self._queue.next_when()) is not None:
                delay = (when - self.clock.now_ms()) / 1000.0
                if delay > 0:
                    self._ticker_cond.wait(delay)
                    continue
                try:
                    self.advance()
                except Exception:  # a screen's bug must not stop the clock
                    log.exception("UI timer failed")
            self._ticker = None

    def next_due_ms(self) -> float:
        """The model time of the next change nobody caused: a timer, or the clock's next minute."""
        with self.lock:
            clock_due = StatusClock.next_minute_ms(self.clock.now_ms(), self.clock.wall())
            when = self._queue.next_when()
            return clock_due if when is None else min(when, clock_due)

    def advance(self) -> None:
        """Handle every timer and input event due by now, in model-time order, and tick the status
        bar clock."""
        with self.lock:
            if self.geometry_source is not None:
                geometry = self.geometry_source()
                if geometry != self.geo:
                    self.relayout(geometry)
            arrivals = self._inbox.take()
            for arrival in arrivals:
                self._post_touches(arrival.events)
            now = self.clock.now_ms()
            try:
                while (handler := self._queue.pop_due(now)) is not None:
                    handler()
            finally:
                for arrival in arrivals:
                    arrival.handled.set()
            text = self._status_clock.tick(self.clock.wall())
            if text is not None:
                clock = self.status_bar.root.children[0]
                clock.text = text
                self.nodes_changed(self.status_bar, [clock], ("text",))

    def relayout(self, geometry: Geometry) -> None:
        """The display changed size or orientation: the system's windows are laid out again and
        the app's activity is recreated on its tab (its dialogs and the keyboard go away)."""
        with self.lock:
            if geometry == self.geo:
                return
            relaunches = [(app, app.relaunch_extras()) for app in self._apps if app.running]
            for app in self._apps:
                app.stop()
            self.hide_keyboard()
            for w in (self.status_bar, self.nav_bar, self.launcher):
                self._remove(w)
            self.geo = geometry
            self.status_bar = system.status_bar(geometry, self.clock.wall(), self.status_icons)
            self.nav_bar = system.nav_bar(geometry, lambda code: self._key(code, 0))
            self.keyboard = system.keyboard(geometry, self._keyboard_press)
            self.launcher = system.launcher(geometry, self._launch_from_home)
            for w in (self.status_bar, self.nav_bar):
                self._insert(w)
            for app, extras in reversed(relaunches):  # the first registered app comes back on top
                app.start(extras)
            self._refresh_launcher()
            self._restack()
            self._windows_changed()

    # --- windows --------------------------------------------------------------------------------

    def windows(self) -> list[Window]:
        """The interactive windows, top-most first."""
        with self.lock:
            self.advance()
            return list(self._windows)

    def stacked_windows(self) -> list[Window]:
        """The windows top-most first, as they are now: no timer runs (the caller holds the lock)."""
        return list(self._windows)

    def accessibility_windows(self) -> list[Window]:
        """The windows UiAutomation.getWindows() reports, top-most first: a touch-modal dialog
        hides the app window under it (ui/accessibility.py)."""
        with self.lock:
            self.advance()
            return accessibility.reported(self._windows, (0, 0, self.geo.width, self.geo.height))

    def _insert(self, window: Window) -> None:
        if window not in self._windows:
            self._stack_seq[window.id] = next(self._order)
            self._windows.append(window)

    def _restack(self) -> None:
        self._windows.sort(key=lambda w: (w.layer, self._stack_seq[w.id]), reverse=True)
        top_app = next((w for w in self._windows if w.type == "application"), None)
        for w in self._windows:
            w.focused = w.active = w is top_app

    def add_window(self, window: Window) -> None:
        with self.lock:
            self._insert(window)
            self._refresh_launcher()
            self._restack()
            self._windows_changed()

    def remove_window(self, window: Window) -> None:
        with self.lock:
            if window not in self._windows:
                return
            if self._focused_window is window:
                self._unfocus()
            self._remove(window)
            self._refresh_launcher()
            self._restack()
            self._windows_changed()

    def bring_to_front(self, window: Window) -> None:
        """An activity already running comes to the front (am start of a running app)."""
        with self.lock:
            if window in self._windows:
                self._stack_seq[window.id] = next(self._order)
                self._restack()
                self._windows_changed()

    def _app_windows(self) -> list[Window]:
        """The activities' windows (not the launcher's, not dialogs)."""
        return [w for w in self._windows if w.type == "application" and not w.modal and w is not self.launcher]

    def focused_task_bounds(self) -> Bounds | None:
        """The bounds of the focused window's task (ActivityTaskManager.getTasks: a full-screen
        task's are the display's, a freeform task's its window's frame); None when nothing has the
        focus."""
        with self.lock:
            focused = next((w for w in self._windows if w.focused), None)
            return None if focused is None else focused.task_bounds((0, 0, self.geo.width, self.geo.height))

    def _refresh_launcher(self) -> None:
        """The home screen is shown while no full-screen activity is (freeform tasks float over it)."""
        if any(not w.freeform for w in self._app_windows()):
            self._remove(self.launcher)
        else:
            self._insert(self.launcher)

    def _remove(self, window: Window) -> None:
        if window in self._windows:
            self._windows.remove(window)
            if self._pointer_window is window:
                self._pointer = None
                self._pointer_window = None

    def _windows_changed(self) -> None:
        self._animations_end_ms = max(self._animations_end_ms, self.clock.now_ms() + WINDOW_ANIMATION_MS)
        self._notify(WindowsChanged(tuple(w.id for w in self._windows)))

    def animations_end_ms(self) -> float:
        """When the window animations running now end (a window appearing, going away or coming
        to the front transitions for WINDOW_ANIMATION_MS): what waitForAnimationsToComplete waits for."""
        with self.lock:
            return self._animations_end_ms

    def nodes_changed(self, window: Window, nodes: Iterable[Node], kinds: tuple[str, ...]) -> None:
        """A screen changed nodes of its window: drop the window's cache and tell the listeners."""
        with self.lock:
            window.changed()
            if window in self._windows:
                self._notify(NodesChanged(window.id, tuple(n.uid for n in nodes), kinds,
                                          window.sends_change_events))

    def set_status_icons(self, icons: tuple[system.StatusIcon, ...]) -> None:
        """SystemUI's status bar icons changed (the radios: ui/shade.py follows the device state)."""
        with self.lock:
            if icons == self.status_icons:
                return
            self.status_icons = icons
            system.lay_out_status_icons(self.geo, self.status_bar, icons)
            self.nodes_changed(self.status_bar, [self.status_bar.root], ("structure",))

    def redrawn(self, window: Window) -> None:
        """The window's pixels changed and none of its nodes did (an animation frame): the display
        shows a new frame; the tree, its caches and the accessibility events stay as they are."""
        with self.lock:
            if window in self._windows:
                self._notify(NodesChanged(window.id, (), (), False))

    def find(self, uid: int) -> tuple[Window, Node] | None:
        """The live node with this id, and its window."""
        with self.lock:
            self.advance()
            for w in self._windows:
                node = w.find(uid)
                if node is not None:
                    return w, node
            return None

    def window(self, window_id: int) -> Window | None:
        with self.lock:
            return next((w for w in self._windows if w.id == window_id), None)

    # --- the apps -------------------------------------------------------------------------------

    def register_app(self, app: UiApp) -> None:
        """A plug-in app the launcher starts and the keys reach (ui/apps.py)."""
        with self.lock:
            self._apps.append(app)

    def foreground(self) -> str | None:
        """The package of the activity in front; None on the home screen."""
        with self.lock:
            windows = self._app_windows()
            return windows[0].package if windows else None

    def _home_shown(self) -> None:
        if self.on_home_shown is not None:
            self.on_home_shown()

    def _launch_from_home(self, package: str) -> None:
        if self.on_launch is not None:
            self.on_launch(package)
            return
        app = next((a for a in self._apps if a.package == package), None) or self._main_app()
        if app is not None:
            app.start({})

    def _main_app(self) -> UiApp | None:
        """The first app registered: what BACK reaches when no registered app is in front."""
        return self._apps[0] if self._apps else None

    # --- the permission prompt ------------------------------------------------------------------

    def request_permission(self, permission: str, answer: Callable[[str, str], None]) -> None:
        """The runtime permission prompt for a permission group ("camera"); a request the
        permission controller answers at once (granted already, a denial fixed by the user) shows
        no prompt, as Activity.requestPermissions does."""
        verdict = self.permissions.answer_without_prompt(permission)
        if verdict is not None:
            answer(permission, verdict)
            return
        with self.lock:
            self.dismiss_permission()
            self._prompt_permission = permission
            self._prompt_answer = answer
            choices = self.permissions.choices(permission)
            self._prompt = system.permission_prompt(self.geo, permission, choices, self._answer_prompt)
            self.add_window(self._prompt)

    @property
    def permission_prompt(self) -> Window | None:
        return self._prompt

    def _answer_prompt(self, choice: str) -> None:
        answer, permission = self._prompt_answer, self._prompt_permission
        self.dismiss_permission()
        verdict = self.permissions.choose(permission, choice)
        if answer is not None:
            answer(permission, verdict)

    def dismiss_permission(self) -> None:
        with self.lock:
            if self._prompt is not None:
                prompt, self._prompt = self._prompt, None
                self._prompt_answer = None
                self.remove_window(prompt)

    # --- focus and the keyboard -----------------------------------------------------------------

    @property
    def focused(self) -> Node | None:
        return self._focused

    def focused_now(self) -> Node | None:
        """The input focus as UiAutomation.findFocus(FOCUS_INPUT) finds it: asked of the app, which
        handles the input queued before the question first (as the Java fake platform's AppThread)."""
        with self.lock:
            self.advance()
            return self._focused

    def focus(self, node: Node) -> None:
        """Focus a field: the keyboard window comes up for an editable one."""
        with self.lock:
            window = next((w for w in self._windows if any(n is node for n in w.nodes())), None)
            if window is None:
                return
            if self._focused is not node:
                self._unfocus(hide_keyboard=False)
                node.focused = True
                self._focused, self._focused_window = node, window
                self.nodes_changed(window, [node], ("state",))
            if node.editable and self.keyboard not in self._windows:
                self._shift = False
                self.add_window(self.keyboard)
            if node.focus_taken_by is not None and node.focus_taken_by is not node:
                self.focus(node.focus_taken_by)

    def clear_focus_in(self, window: Window) -> None:
        with self.lock:
            if self._text_toolbar is not None and self._window_of(self._text_toolbar[1]) is window:
                self.dismiss_text_toolbar()
            if self._focused_window is window:
                self._unfocus()

    def _unfocus(self, *, hide_keyboard: bool = True) -> None:
        node, window = self._focused, self._focused_window
        self._focused = self._focused_window = None
        if node is not None and window is not None:
            node.focused = False
            self.nodes_changed(window, [node], ("state",))
        if hide_keyboard:
            self.hide_keyboard()

    def hide_keyboard(self) -> None:
        with self.lock:
            if self.keyboard in self._windows:
                self._remove(self.keyboard)
                self._restack()
                self._windows_changed()

    @property
    def keyboard_shown(self) -> bool:
        return self.keyboard in self._windows

    def _keyboard_press(self, label: str) -> None:
        if len(label) == 1:
            self.type_text(label.upper() if self._shift else label)
            if self._shift:
                self._set_shift(False)
        elif label == "space":
            self.type_text(" ")
        elif label == "delete":
            self.delete_char()
        elif label == "shift":
            self._set_shift(not self._shift)
        elif label == "enter":
            self.hide_keyboard()

    def _set_shift(self, on: bool) -> None:
        self._shift = on
        key = next(n for n in self.keyboard.nodes() if n.desc == "shift")
        key.checked = on
        self.nodes_changed(self.keyboard, [key], ("state",))

    # --- text -----------------------------------------------------------------------------------

    def type_text(self, text: str) -> bool:
        """Characters into the focused field, at its end (as an IME commits them)."""
        with self.lock:
            node = self._focused
            if node is None or not node.editable or self._focused_window is None:
                return False
            node.text = (node.text or "") + text
            if node.on_text_set is not None:
                node.on_text_set(node.text)
            self.nodes_changed(self._focused_window, [node], ("text",))
            if node.advances_to is not None:
                self.focus(node.advances_to)
            return True

    def delete_char(self) -> bool:
        with self.lock:
            node = self._focused
            if node is None or not node.editable or not node.text or self._focused_window is None:
                return False
            node.text = node.text[:-1]
            if node.on_text_set is not None:
                node.on_text_set(node.text)
            self.nodes_changed(self._focused_window, [node], ("text",))
            return True

    def set_text(self, node: Node, text: str) -> bool:
        """ACTION_SET_TEXT: False when the node does not take it, or is disabled now
        (TextView.performAccessibilityActionInternal refuses it unless the view is enabled)."""
        with self.lock:
            if not (node.editable and node.accepts_set_text and node.enabled):
                return False
            located = self._window_of(node)
            if located is None:
                return False
            node.text = text
            if node.on_text_set is not None:
                node.on_text_set(text)
            self.nodes_changed(located, [node], ("text",))
            return True

    def paste(self, node: Node) -> bool:
        """ACTION_PASTE: the clipboard's text at the end of the field; False where the app refuses it."""
        with self.lock:
            return not node.refuses_paste_action and self._paste_into(node)

    def _paste_into(self, node: Node) -> bool:
        """What the app does to paste: the primary clip's text inserted at the cursor (the end)."""
        if not node.editable:
            return False
        text = self.app_clip(node.package or self.foreground() or "android")
        if text is None:
            return False
        located = self._window_of(node)
        if located is None:
            return False
        node.text = (node.text or "") + text
        self.nodes_changed(located, [node], ("text",))
        return True

    # --- the clipboard (ui/clipboard.py) ---------------------------------------------------------

    @property
    def clipboard(self) -> str | None:
        """The primary clip's text."""
        clip = self.clip
        return clip.text if clip is not None else None

    @clipboard.setter
    def clipboard(self, text: str | None) -> None:
        """An app copies `text` (or clears the clipboard): SystemUI shows its overlay."""
        if text is None:
            self.clear_clip()
        else:
            self.set_clip(clips.Clip(text), source=self.foreground() or "android")

    def set_clip(self, clip: clips.Clip, *, source: str) -> None:
        """IClipboard.setPrimaryClip from `source`: ClipRefused when ClipboardService refuses it;
        else SystemUI shows its overlay unless the clip suppresses it."""
        with self.lock:
            if source == clips.SHELL_PACKAGE and self.shell_clip_writes_ignored:
                return
            clips.check_data_owner(clip, source)
            self.clip = clip
            self._clip_owner, self._clip_notified = source, set()
            if not clips.suppresses_overlay(clip, source, self.emulator):
                self._show_clipboard_overlay(clip)

    def clear_clip(self) -> None:
        """clearPrimaryClip: SystemUI has no clip to show."""
        with self.lock:
            self.clip = None
            self._clip_owner, self._clip_notified = None, set()

    def shell_clip(self, uid: int = clips.SHELL_UID) -> clips.Clip | None:
        """getPrimaryClip as the shell (or as root naming the shell's package): None when the
        clipboard is empty or the read is refused (ClipboardService.getPrimaryClip, Android 13 to
        16): nothing while the device is locked (isDeviceLocked); for root, addActiveOwnerLocked
        throws (uid 0 does not own com.android.shell) and the clipboard is cleared; else the clip,
        with the access toast for a reader that is not the clip's owner."""
        with self.lock:
            if self.device_locked():
                return None
            if uid == clips.ROOT_UID:
                self.clear_clip()
                return None
            clip = self.clip
            if clip is None or not clip.shell_readable:
                return None
            self._access_toast(clips.SHELL_PACKAGE)
            return clip

    def app_clip(self, package: str) -> str | None:
        """getPrimaryClip as the app `package` (to paste): the clip's text, with the access toast."""
        with self.lock:
            if self.device_locked() or self.clip is None:
                return None
            self._access_toast(package)
            return self.clip.text

    def _access_toast(self, reader: str) -> None:
        """ClipboardService.showAccessNotificationLocked: "<label> pasted from your clipboard", a
        Toast of system_server's own context (package `android`), for a reader that is not the
        clip's owner, once per clip and reader, unless the setting is off."""
        if not self.clipboard_access_notifications() or reader == self._clip_owner or reader in self._clip_notified:
            return
        self._clip_notified.add(reader)
        label = clips.SHELL_LABEL if reader == clips.SHELL_PACKAGE else self.app_labels.get(reader, reader)
        self.toasts.show(clips.SYSTEM_PACKAGE, label + clips.PASTED_FROM_CLIPBOARD)

    def has_clip(self) -> bool:
        """hasPrimaryClip: a clip is there, readable or not; false while the device is locked."""
        with self.lock:
            return self.clip is not None and not self.device_locked()

    @property
    def clipboard_overlay(self) -> Window | None:
        return self._clipboard_overlay

    def _show_clipboard_overlay(self, clip: clips.Clip) -> None:
        self.dismiss_clipboard_overlay()
        overlay = clips.overlay_window(self.geo, clip)
        self._clipboard_overlay = overlay

        def timeout() -> None:
            if self._clipboard_overlay is overlay:
                self.dismiss_clipboard_overlay()

        self.add_window(overlay)
        self.schedule(clips.OVERLAY_TIMEOUT_MS, timeout)

    def dismiss_clipboard_overlay(self) -> None:
        with self.lock:
            overlay, self._clipboard_overlay = self._clipboard_overlay, None
            if overlay is not None:
                self.remove_window(overlay)

    # --- the floating text toolbar (ui/text_toolbar.py) ------------------------------------------

    @property
    def text_toolbar(self) -> Window | None:
        return self._text_toolbar[0] if self._text_toolbar is not None else None

    def _long_press_text(self, field: Node) -> None:
        """Editor.performLongClick: the field takes the focus (the keyboard comes up), the caret
        goes where it was pressed (the end here), and with text on the clipboard the toolbar offers
        Paste."""
        self.dismiss_text_toolbar()
        self.focus(field)
        if not self.clipboard:
            return
        window = text_toolbar.toolbar_window(self.geo, field, lambda: self._toolbar_paste(field))
        self._text_toolbar = (window, field)
        self.add_window(window)

    def _toolbar_paste(self, field: Node) -> None:
        """The toolbar's Paste: the app's own paste (TextView.onTextContextMenuItem(android.R.id.paste)),
        then the action mode ends."""
        self.dismiss_text_toolbar()
        self._paste_into(field)

    def dismiss_text_toolbar(self) -> None:
        with self.lock:
            shown, self._text_toolbar = self._text_toolbar, None
            if shown is not None:
                self.remove_window(shown[0])

    def _window_of(self, node: Node) -> Window | None:
        return next((w for w in self._windows if any(n is node for n in w.nodes())), None)

    # --- keys -----------------------------------------------------------------------------------

    def key(self, code: int, meta: int = 0) -> bool:
        """One key press (down and up) injected waiting for the app to finish it
        (INJECT_INPUT_EVENT_MODE_WAIT_FOR_FINISH, the `input` tool's way: InputShellCommand's
        injectKeyEvent): queued behind the input before it and handled before this returns.
        True: the platform accepted it. While the app is busy (`set_app_busy`) the key is held for it
        and this answers False at once (the caller's wait ran out: `key_finished` tells)."""
        with self.lock:
            verdicts: list[bool] = []
            self._post_key(lambda: verdicts.append(self._key(code, meta)))
            self.advance()
            return all(verdicts) and bool(verdicts)

    def key_finished(self, code: int, meta: int = 0) -> bool | None:
        """`key`, telling a key the busy app has not handled yet (None: still queued for it, as
        InputManagerService's WAIT_FOR_FINISH would go on waiting up to INJECTION_TIMEOUT_MILLIS)."""
        with self.lock:
            if self._app_busy:
                self._post_key(functools.partial(self._handle_key, code, meta))
                return None
            return self.key(code, meta)

    def _handle_key(self, code: int, meta: int) -> None:
        self._key(code, meta)

    def set_app_busy(self, busy: bool) -> None:
        """The app's UI thread is busy (a long frame, a stall): keys wait for it, and are handled,
        in order, once it is free (the Java fake platform's appBusy and appIdle)."""
        with self.lock:
            self._app_busy = busy
            if not busy:
                held, self._held_keys = self._held_keys, []
                for fn in held:
                    self._post(self.clock.now_ms(), fn)
                self.advance()

    def _post_key(self, fn: Callable[[], None]) -> None:
        if self._app_busy:
            self._held_keys.append(fn)
        else:
            self._post(self.clock.now_ms(), fn)

    def inject_key(self, code: int, meta: int = 0) -> bool:
        """One key press (down and up) handed to the input dispatcher without waiting
        (INJECT_INPUT_EVENT_MODE_ASYNC): the app handles it after this returns, when the queue
        reaches it (the next look at the screen, or the timer thread). True: it was queued, which is
        all an asynchronous injection's verdict says (InputDispatcher::injectInputEvent)."""
        def handle() -> None:
            self._key(code, meta)

        with self.lock:
            self._post_key(handle)
            return True

    def _key(self, code: int, meta: int) -> bool:
        if code == system.KEYCODE_BACK:
            app_in_front = bool(self._app_windows())
            if self.keyboard_shown:
                self.hide_keyboard()
            elif self._prompt is not None:
                self._answer_prompt("cancel")  # GrantPermissionsActivity.onBackPressed: CANCELED
            else:
                front = self._app_windows()
                owner = next((a for a in self._apps if front and a.owns(front[0])), None) or self._main_app()
                if owner is not None:
                    owner.back()
            if app_in_front and not self._app_windows():
                self._home_shown()
            return True
        if code == system.KEYCODE_HOME:
            self.dismiss_permission()
            for app in self._apps:
                app.stop()
            self._home_shown()
            return True
        if code == system.KEYCODE_DEL:
            self.delete_char()
            return True
        if code == system.KEYCODE_PASTE:
            # TextView.doKeyDown: KEYCODE_PASTE pastes the primary clip into the focused field
            field = self._focused
            if field is not None and not field.ignores_paste_key:
                self._paste_into(field)
            return True
        if code in (system.KEYCODE_ENTER, system.KEYCODE_TAB):
            if code == system.KEYCODE_ENTER:
                self.hide_keyboard()
            return True
        table = _SHIFTED if meta & system.META_SHIFT_ON else _UNSHIFTED
        ch = table.get(code)
        if ch is not None:
            self.type_text(ch)
        return True

    # --- touch ----------------------------------------------------------------------------------

    def hit(self, x: int, y: int) -> tuple[Window | None, Node | None]:
        """The window a touch at (x, y) goes to, and the clickable node it lands on.

        The input dispatcher looks through a window that takes no touches (FLAG_NOT_TOUCHABLE); a
        touch-modal window takes every touch in its task that no window above it takes."""
        with self.lock:
            display = (0, 0, self.geo.width, self.geo.height)
            for w in self._windows:
                if not w.touchable:
                    continue
                if w.contains(x, y):
                    return w, _deepest(w.root, x, y, lambda n: n.clickable or n.long_clickable)
                left, top, right, bottom = w.touch_region(display)
                if w.modal and left <= x < right and top <= y < bottom:
                    return w, None
            return None, None

    def touch(self, x: int, y: int, pressed: bool, t_ms: float | None = None) -> None:
        """One touchscreen event of a single pointer (down, move: pressed again, or up) at its event
        time `t_ms` (now when None), handled once it is due."""
        self.touches([(x, y, pressed, t_ms)])

    def touches(self, events: Iterable[TouchEvent]) -> None:
        """Touch events queued together, each at its event time (x, y, pressed, t_ms: an injected
        MotionEvent's event time; now when None, taken before waiting for the lock), then everything
        due handled in model-time order with the timers (ui/looper.py): a DOWN and an UP queued
        together are a tap however late the thread that handles them runs, since the long-press check
        the DOWN posts falls due after it."""
        stamped = self._stamped(events)
        with self.lock:
            self._post_touches(stamped)
            self.advance()

    def post_touches(self, events: Iterable[TouchEvent]) -> threading.Event:
        """Touches from the touchscreen, as the kernel reports them: stamped now (or at their t_ms)
        and handed to the UI thread without waiting for it, so a lift that arrives while the app is
        busy keeps its own time and a tap stays a tap. The event returned is set once they were
        handled: by the process's input dispatcher thread with the real clock, at once without timer threads."""
        handled = self._inbox.put(self._stamped(events))
        if self._ticker_enabled:
            DISPATCHER.submit(self.advance)
        else:
            self.advance()
        return handled

    def _stamped(self, events: Iterable[TouchEvent]) -> list[tuple[int, int, bool, float]]:
        now = self.clock.now_ms()
        return [(x, y, pressed, now if t_ms is None else t_ms) for x, y, pressed, t_ms in events]

    def _post_touches(self, events: Iterable[tuple[int, int, bool, float]]) -> None:
        for x, y, pressed, when in events:
            self._post(when, functools.partial(self._touch_event, x, y, pressed, when))

    def _touch_event(self, x: int, y: int, pressed: bool, t: float) -> None:
        gesture = self._pointer
        if pressed and gesture is None:
            self._down(x, y, t)
        elif pressed and gesture is not None:
            self._move(gesture, x, y, t)
        elif gesture is not None:
            self._up(gesture, x, y, t)

    def _down(self, x: int, y: int, t: float) -> None:
        if self._fling is not None:
            self._fling = None  # a touch stops a fling where it is
        overlay = self._clipboard_overlay
        if overlay is not None and not overlay.contains(x, y):
            self.dismiss_clipboard_overlay()  # a touch outside it (FLAG_WATCH_OUTSIDE_TOUCH) closes it
        if self._text_toolbar is not None and not self._text_toolbar[0].contains(x, y):
            self.dismiss_text_toolbar()  # the action mode ends on a touch elsewhere
        gesture = TouchGesture(x, y, t, self.geo.touch_slop)
        self._pointer = gesture
        window, _ = self.hit(x, y)
        self._pointer_window = window
        self._scroll_node = _deepest(window.root, x, y, lambda n: n.scroller is not None) if window else None

        pointer = weakref.ref(gesture)  # the pending timer must not keep a lifted pointer alive

        def long_press() -> None:
            gesture = pointer()
            if gesture is not None and self._pointer is gesture and gesture.check_long_press():
                target = self._target_at(gesture.down_x, gesture.down_y)
                if target is not None and target.editable and target.enabled:
                    self._long_press_text(target)
                elif target is not None and target.long_clickable and target.on_long_click is not None:
                    target.on_long_click()

        gesture.long_press_token = self.schedule(gesture.long_press_delay(self.clock.now_ms()), long_press)

    def _move(self, gesture: TouchGesture, x: int, y: int, t: float) -> None:
        if not gesture.move(x, y, t):
            return
        node = self._scroll_node
        if node is None or node.scroller is None:
            return
        offset = gesture.scroll_offset(node.scroller.offset())
        if offset is not None:
            node.scroller.scroll_to(offset)

    def _up(self, gesture: TouchGesture, x: int, y: int, t: float) -> None:
        self._move(gesture, x, y, t)
        if gesture.long_press_token is not None:
            self.unschedule(gesture.long_press_token)  # ACTION_UP's removeLongPressCallback (View.onTouchEvent)
        lift = gesture.lift(x, y, t)
        self._pointer = None
        window, self._pointer_window = self._pointer_window, None
        if lift is Lift.DRAG_END:
            velocity = gesture.fling_velocity()
            node = self._scroll_node
            if node is not None and node.scroller is not None and velocity is not None:
                self._start_fling(node, velocity)
            return
        if lift is not Lift.CLICK or window is None:
            return
        target = self._target_at(gesture.down_x, gesture.down_y)
        if target is not None and target.on_click is not None and target.enabled:
            target.on_click()

    def _target_at(self, x: int, y: int) -> Node | None:
        window, node = self.hit(x, y)
        return node

    def _start_fling(self, node: Node, velocity_px_per_ms: float) -> None:
        assert node.scroller is not None
        fling = Fling.released(self.clock.now_ms(), node.scroller.offset(), velocity_px_per_ms, self.geo.density)
        self._fling, self._fling_node = fling, node

        def step() -> None:
            if self._fling is not fling or node.scroller is None:
                return
            now = self.clock.now_ms()
            node.scroller.scroll_to(fling.offset_at(now))
            if fling_goes_on(fling, now, node.scroller.offset(), node.scroller.max_offset()):
                self.schedule(FLING_FRAME_MS, step)
            else:
                self._fling = None

        self.schedule(FLING_FRAME_MS, step)

    @property
    def flinging(self) -> bool:
        return self._fling is not None

    # --- pixels ---------------------------------------------------------------------------------

    def render(self, width: int | None = None, height: int | None = None) -> Image.Image:
        """The screen as an RGB image, scaled to width x height when given."""
        with self.lock:
            self.advance()
            return render(self, width, height)


def _deepest(root: Node, x: int, y: int, wanted: Callable[[Node], bool]) -> Node | None:
    """The deepest wanted node under (x, y) (the last one in pre-order whose bounds contain it)."""
    found: Node | None = None
    stack = [root]
    while stack:
        node = stack.pop()
        if not node.contains(x, y):
            continue
        if wanted(node):
            found = node
        stack.extend(reversed(node.children))
    return found
