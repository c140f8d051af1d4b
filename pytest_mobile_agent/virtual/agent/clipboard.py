"""The clipboard as text (docs/protocol.md, `clipboard_get` and `clipboard_set`; the Java agent's
core/Agent and platform's clipboardText / setClipboardText): the primary clip read and set as the
shell, a set clip carrying SystemUI's suppress extra so that no clipboard overlay shows for it.

Both run under the input lock (a read never sees a paste's own clip). A read is refused,
`clipboard_unavailable`, where it would give nothing or destroy the clip (the Java agent's
platform/ClipboardRefusal): as root, ClipboardService.getPrimaryClip's addActiveOwnerLocked finds
that uid 0 does not own com.android.shell and clears the clipboard; while the device is locked it
reads nothing (services/core/java/com/android/server/clipboard/ClipboardService.java, Android 13
to 16).
"""

from __future__ import annotations

from typing import Any

from pytest_mobile_agent.virtual.agent.input import Injector
from pytest_mobile_agent.virtual.agent.params import RequestError
from pytest_mobile_agent.virtual.agent.toasts import ToastBuffer
from pytest_mobile_agent.virtual.ui.clipboard import ROOT_UID, SHELL_PACKAGE, Clip, ClipRefused


def read_refusal(ui: Any, agent_uid: int) -> str | None:
    """Why the agent must not read the clipboard now, or None (platform/ClipboardRefusal.of)."""
    if agent_uid == ROOT_UID:
        return ("the agent runs as root (uid 0), and ClipboardService clears the clipboard on a read by root "
                "(addActiveOwnerLocked: uid 0 does not own com.android.shell): the host launches the agent "
                "as the shell with `su 2000` under adb root; where su is missing, run `adb unroot`")
    if ui.device_locked():
        return "the device is locked, and ClipboardService reads nothing while it is (isDeviceLocked): unlock it first"
    return None


class ClipboardAccess:
    def __init__(self, injector: Injector, toasts: ToastBuffer, agent_uid: int) -> None:
        self.injector = injector
        self.ui = injector.ui
        self.toasts = toasts
        self.agent_uid = agent_uid

    def get(self, params: dict[str, Any], deadline: float) -> dict[str, Any]:
        with self.injector.injecting():
            refusal = read_refusal(self.ui, self.agent_uid)
            if refusal is not None:
                raise RequestError("clipboard_unavailable", refusal)
            self.toasts.expect_system_toasts(1)
            clip = self.ui.shell_clip(self.agent_uid)
            if clip is None and self.ui.has_clip():
                raise RequestError("internal", "the clipboard holds a clip the shell may not read")
        return {"text": None if clip is None else clip.text}

    def set(self, params: dict[str, Any], deadline: float) -> dict[str, Any]:
        text = params.get("text")
        if text is not None and not isinstance(text, str):
            raise RequestError("invalid_params", "text must be a string or null")
        with self.injector.injecting():
            try:
                if text is None:
                    self.ui.clear_clip()
                else:
                    self.ui.set_clip(Clip(text).unseen(), source=SHELL_PACKAGE)
            except ClipRefused as exc:
                raise RequestError("internal", f"the clipboard refused the clip: {exc}") from None
        return {}
