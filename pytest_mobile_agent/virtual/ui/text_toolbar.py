"""The floating text toolbar a long press on a text field shows (Android 13-16).

A long press on an editable TextView (or a Compose text field) puts the caret there and starts the
text action mode; with text on the clipboard the floating toolbar offers Paste
(frameworks/base core/java/android/widget/Editor.java, `performLongClick` and
TextActionModeCallback's `populateMenuWithItems`: Paste when `canPaste()`, that is the field is
editable and the clipboard has a primary clip; Compose's TextFieldSelectionManager asks the same
of its AndroidTextToolbar). The toolbar is the app's own popup window
(com.android.internal.widget.floatingtoolbar.LocalFloatingToolbarPopup), above the field, each item
a clickable layout holding the item's title in `android:id/floating_toolbar_menu_item_text`; it
sends accessibility events (it is made of Views, in a Compose app too). Paste inserts the clip's
text at the caret, the end of the field here, and the toolbar goes; a touch outside it dismisses
it.

Modelled: the insertion toolbar and its Paste. On a real device a long press on a word of a
non-empty field selects it and adds Cut, Copy, Select all and Share; here the caret goes to the end
and only Paste is offered.
"""

from __future__ import annotations

from collections.abc import Callable

from pytest_mobile_agent.virtual.ui.geometry import Geometry
from pytest_mobile_agent.virtual.ui.node import Node, Window
from pytest_mobile_agent.virtual.ui.system import LAYER_ALERT

PASTE = "Paste"  # android:string/paste
ITEM_TEXT_ID = "android:id/floating_toolbar_menu_item_text"
ITEM_WIDTH = 260
HEIGHT = 132


def toolbar_window(geo: Geometry, field: Node, on_paste: Callable[[], object]) -> Window:
    """The toolbar above the field (below it when the field is at the top of the screen)."""
    left = max(geo.dp(8), min(field.bounds[0] + geo.dp(16), geo.width - ITEM_WIDTH - geo.dp(8)))
    top = field.bounds[1] - HEIGHT - 12
    if top < geo.status_bar[3]:
        top = field.bounds[3] + 12
    bounds = (left, top, left + ITEM_WIDTH, top + HEIGHT)
    window = Window(type="application", title="PopupWindow", package=field.package, layer=LAYER_ALERT,
                    bounds=bounds, sends_change_events=True)
    window.root.cls = "android.widget.LinearLayout"
    item = window.root.add(Node("android.widget.LinearLayout", bounds, clickable=True, focusable=True,
                                package=field.package))
    item.add(Node("android.widget.TextView", (left + 30, top + 30, left + ITEM_WIDTH - 30, top + HEIGHT - 30),
                  text=PASTE, res=ITEM_TEXT_ID, package=field.package))
    item.on_click = on_paste
    return window
