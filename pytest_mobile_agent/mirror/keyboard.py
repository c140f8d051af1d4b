"""The soft keyboard as a test sees it (issue 36, item 2): `screen.keyboard`.

    assert screen.keyboard.shown
    screen.keyboard.press_action()        # KeyboardAction(action="search", via="enter_key", ack=...)
    screen.keyboard.hide()

* `shown`, `window`, `bounds`: the IME's window among the windows the agent reports. The platform
  lists it (AccessibilityWindowInfo.TYPE_INPUT_METHOD, `input_method` in docs/protocol.md) only
  while the keyboard is shown: InputMethodService shows and hides its window, and the accessibility
  window list follows the visible windows (AccessibilityWindowManager, frameworks/base
  services/accessibility/java/com/android/server/accessibility/AccessibilityWindowManager.java).
* `hide()`: BACK while the keyboard is shown. The IME receives key events before the app
  (ViewRootImpl's ImeInputStage) and consumes BACK by hiding itself
  (InputMethodService.onKeyDown/handleBack), so the app never sees it; BACK is sent only when a
  fresh look shows the keyboard, since one with nothing to hide would leave the screen. Then it
  waits until the keyboard's window is gone. The agent has no InputMethodManager route: the
  platform hides the keyboard for the window that holds the input focus
  (InputMethodManager.hideSoftInputFromWindow needs that window's token, which only the app has).
* `press_action()`: the IME action of the editor with the input focus: AccessibilityAction.
  ACTION_IME_ENTER through the agent (`ime_enter`, docs/protocol.md: API 30+, on a field that
  offers it), else ENTER, which performs a single-line field's action too (Compose's
  TextFieldKeyInput; TextView hands ENTER to its OnEditorActionListener: virtual/ui/ime.py cites
  both). Below API 30 no agent call performs the editor action (InputConnection.performEditorAction
  belongs to the IME's connection), so ENTER is the route there. The answer reports the action the
  field declares (search, go, done, next, send, previous, none: the node's `ime_action` where the
  agent reports it, else None) and the route taken.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, TypeVar

from pytest_mobile_agent.arguments import check_timeout
from pytest_mobile_agent.errors import NoMatch, WaitTimeout
from pytest_mobile_agent.mirror.geometry import has_area
from pytest_mobile_agent.mirror.receives_touch import INPUT_METHOD
from pytest_mobile_agent.mirror.replica import Entry, View
from pytest_mobile_agent.mirror.steps import Steps, recorded
from pytest_mobile_agent.session.backends import Ack, Bounds, Window

T = TypeVar("T")

KEYCODE_BACK = 4
KEYCODE_ENTER = 66


@dataclass(frozen=True)
class KeyboardAction:
    """What `press_action` did: the action the field declares (None when the agent does not say,
    or the field declares none), the route it took (`ime_enter`: ACTION_IME_ENTER through the
    agent; `enter_key`), and the platform's verdict."""

    action: str | None
    via: str
    ack: Ack


class KeyboardHost(Protocol):
    """What the keyboard needs of the screen (the mirror)."""

    steps: Steps
    action_timeout: float

    def snapshot(self) -> View: ...

    def refresh(self) -> View: ...

    def press_key(self, key: int | str, meta: int = 0) -> Ack: ...

    def ime_enter(self, node: int) -> Ack | None: ...

    def wait_until(self, condition: Callable[[View], T | None], timeout: float | None = None,
                   what: str = "a condition") -> T: ...


def keyboard_window(view: View) -> Window | None:
    """The IME's window in the view, None while the keyboard is hidden."""
    return next((w for w in view.windows if w.type == INPUT_METHOD and has_area(w.bounds)), None)


def focused_editor(view: View) -> Entry | None:
    """The editable node with the input focus."""
    return next((e for e in view.entries if e.node.focused and e.node.editable), None)


class Keyboard:
    """The soft keyboard of one screen."""

    def __init__(self, screen: KeyboardHost) -> None:
        self._screen = screen
        self.steps = screen.steps

    @property
    def shown(self) -> bool:
        return self.window is not None

    @property
    def window(self) -> Window | None:
        """The IME's window (type `input_method`), None while it is hidden."""
        return keyboard_window(self._screen.snapshot())

    @property
    def bounds(self) -> Bounds | None:
        """The keyboard's area on the display, None while it is hidden."""
        window = self.window
        return window.bounds if window is not None else None

    @recorded("keyboard.hide")
    def hide(self, timeout: float | None = None) -> bool:
        """Hide the keyboard as the platform does (BACK, which the IME consumes) and wait up to
        `timeout` (default the action timeout) until its window is gone; False when it was not
        shown. WaitTimeout when it stays."""
        timeout = self._screen.action_timeout if timeout is None else check_timeout("timeout", timeout)
        if keyboard_window(self._screen.refresh()) is None:
            return False
        self._screen.press_key(KEYCODE_BACK)
        try:
            self._screen.wait_until(lambda view: keyboard_window(view) is None, timeout, "the keyboard to hide")
        except WaitTimeout as exc:
            raise WaitTimeout("the keyboard is still shown after BACK: the IME did not hide itself (a keyboard "
                              "that ignores BACK, or one shown again at once by the app)", timeout,
                              tree=exc.tree) from None
        return True

    @recorded("keyboard.press_action")
    def press_action(self) -> KeyboardAction:
        """Press the IME action of the focused editor (search, go, done, next, send); NoMatch when
        no editor has the input focus."""
        view = self._screen.refresh()
        editor = focused_editor(view)
        if editor is None:
            raise NoMatch("no editable field has the input focus, so there is no IME action to press: tap the "
                          "field first, or type into it with screen.type_text(text, id=..., submit=True)")
        ack = self._screen.ime_enter(editor.node.id)
        if ack is not None:
            return KeyboardAction(editor.node.ime_action, "ime_enter", ack)
        return KeyboardAction(editor.node.ime_action, "enter_key", self._screen.press_key(KEYCODE_ENTER))

    def __repr__(self) -> str:
        bounds = self.bounds
        return f"<Keyboard {'shown at ' + str(list(bounds)) if bounds is not None else 'hidden'}>"
