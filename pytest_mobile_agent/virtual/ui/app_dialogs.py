"""system_server's dialogs about an app: "isn't responding" and "keeps stopping".

AOSP (frameworks/base/services/core/java/com/android/server/am/): AppNotRespondingDialog (layout
core/res/res/layout/app_anr_dialog.xml: "Close app" `android:id/aerr_close`, "Wait"
`android:id/aerr_wait`; message R.string.anr_activity_application, "<app> isn't responding") and
AppErrorDialog (layout app_error_dialog.xml: "App info" `android:id/aerr_app_info`, "Close app"
`android:id/aerr_close`; message R.string.aerr_application_repeated, "<app> keeps stopping"). Both
are BaseErrorDialogs, TYPE_SYSTEM_ERROR windows of the `android` package, titled "Application Not
Responding: <package>" and "Application Error: <package>"; they send change events (Views).

The model shows one through `show_app_not_responding` / `show_app_error` (a test provokes them:
the virtual device's apps never hang); each button takes the dialog away. A known difference: "Close
app" does not kill the app here (AppErrors.killAppAtUserRequestLocked does on a device), since the
model has no process of the app's to kill; a watcher's test of the dialog does not depend on it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pytest_mobile_agent.virtual.ui.node import Node, Window
from pytest_mobile_agent.virtual.ui.system import LAYER_PROMPT

if TYPE_CHECKING:
    from pytest_mobile_agent.virtual.ui.model import UiModel

ANDROID = "android"
LAYER_ERROR = LAYER_PROMPT + 1  # over the app and its prompts, under the keyboard and the bars


def show_app_not_responding(model: UiModel, package: str, label: str) -> Window:
    """The ANR dialog for `package` ("<label> isn't responding", Close app / Wait)."""
    return _show(model, package, f"Application Not Responding: {package}", f"{label} isn't responding",
                 (("aerr_close", "Close app"), ("aerr_wait", "Wait")))


def show_app_error(model: UiModel, package: str, label: str) -> Window:
    """The crash dialog for `package` ("<label> keeps stopping", App info / Close app)."""
    return _show(model, package, f"Application Error: {package}", f"{label} keeps stopping",
                 (("aerr_app_info", "App info"), ("aerr_close", "Close app")))


def _show(model: UiModel, package: str, title: str, message: str,
          buttons: tuple[tuple[str, str], ...]) -> Window:
    geo = model.geo
    left, right = geo.dp(24), geo.width - geo.dp(24)
    top = geo.height // 2 - 300
    w = Window(type="system", title=title, package=ANDROID, layer=LAYER_ERROR,
               bounds=(left, top, right, top + 600), sends_change_events=True, modal=True)
    w.root.res = "android:id/parentPanel"
    w.root.add(Node("android.widget.TextView", (left + 60, top + 60, right - 60, top + 200), text=message,
                    res="android:id/alertTitle", package=ANDROID))
    y = top + 240
    for res, label in buttons:
        button = w.root.add(Node("android.widget.Button", (left + 60, y, right - 60, y + 140), text=label,
                                 res=f"android:id/{res}", package=ANDROID, clickable=True, focusable=True))
        button.on_click = (lambda: model.remove_window(w))
        y += 160
    with model.lock:
        model.add_window(w)
    return w
