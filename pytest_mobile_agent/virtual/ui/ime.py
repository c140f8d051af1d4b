"""The soft keyboard as the platform runs it: the action an editor declares, what its action key and
ENTER do, and who hears the keyboard's insets.

* The action: an editor declares one in `EditorInfo.imeOptions & IME_MASK_ACTION`
  (IME_ACTION_GO 2, SEARCH 3, SEND 4, NEXT 5, DONE 6, PREVIOUS 7; NONE 1; UNSPECIFIED 0: the IME
  decides), frameworks/base core/java/android/view/inputmethod/EditorInfo.java. A Compose field
  gives it as `ImeOptions.imeAction`, which `ImeAction.Default` on a single-line field maps to
  IME_ACTION_DONE (androidx compose ui-text's TextInputServiceAndroid `update(ImeOptions)`).
* The action key: the keyboard draws the action on its enter key (LatinIME reads the EditorInfo in
  `InputMethodService.onStartInputView`), and a press performs it through the input connection
  (`InputConnection.performEditorAction`), or sends KEYCODE_ENTER when the action is none
  (`InputMethodService.sendDefaultEditorAction`, frameworks/base core/java/android/
  inputmethodservice/InputMethodService.java).
* ENTER: a hardware or injected KEYCODE_ENTER on a single-line Compose field performs the field's
  IME action too (androidx compose foundation's TextFieldKeyInput: KeyCommand.NEW_LINE on a
  single-line field calls onImeActionPerformed), as TextView hands it to its
  OnEditorActionListener (TextView.onKeyDown/onKeyUp, frameworks/base core/java/android/widget/
  TextView.java).
* The default when the app handles none: DONE hides the keyboard (TextView.onEditorAction and
  Compose's default KeyboardActions both call hideSoftInput); the others do nothing here.
* The insets: the keyboard's window reports its area as `WindowInsets.Type.ime()` to the window
  below (InsetsController, frameworks/base core/java/android/view/InsetsController.java; the IME's
  insets source is InsetsSourceProvider's for the IME window, ImeInsetsSourceProvider). An app that
  targets Android 15+ is drawn edge to edge (its window keeps the whole display), so the content
  that pads for the IME (`Modifier.imePadding()`, `adjustResize` delivered as insets) shrinks to
  the keyboard's top and what does not pad stays under the keyboard.
"""

from __future__ import annotations

from collections.abc import Callable

from pytest_mobile_agent.virtual.ui.node import Bounds, Node

#: EditorInfo's IME_ACTION_* by the name the protocol reports (docs/protocol.md NODE `ime_action`)
IME_ACTIONS = {"none": 1, "go": 2, "search": 3, "send": 4, "next": 5, "done": 6, "previous": 7}
#: what the keyboard's enter key says for each action (Gboard's content descriptions)
ACTION_KEY_DESCS = {"go": "Go", "search": "Search", "send": "Send", "next": "Next", "done": "Done",
                    "previous": "Previous"}
ENTER_KEY_DESC = "enter"
"""The enter key's description when the editor declares no action (a newline, or KEYCODE_ENTER)."""

InsetsListener = Callable[[Bounds | None], bool]
"""Told the IME window's area when the keyboard shows (None when it hides); returns False once it
no longer listens (its screen was torn down)."""


def declared_action(field: Node | None) -> str | None:
    """The IME action the field declares, None when it declares none (or is no editor)."""
    if field is None or not field.editable:
        return None
    return field.ime_action


def action_key_desc(field: Node | None) -> str:
    """What the keyboard's enter key says while `field` has the input focus."""
    action = declared_action(field)
    return ACTION_KEY_DESCS.get(action or "", ENTER_KEY_DESC)


def enter_action(field: Node | None) -> str | None:
    """The action ENTER (or the action key) performs on the focused field: its declared action, DONE
    for a single-line field that declares none (ImeAction.Default), None when no editor has the focus."""
    if field is None or not field.editable:
        return None
    return declared_action(field) or "done"


class ImeInsets:
    """The windows' content that pads for the keyboard: told its area as it shows and hides."""

    def __init__(self) -> None:
        self._listeners: list[InsetsListener] = []

    def add(self, listener: InsetsListener) -> None:
        self._listeners.append(listener)

    def dispatch(self, keyboard: Bounds | None) -> None:
        self._listeners = [listener for listener in self._listeners if listener(keyboard)]
