"""The clipboard as text (docs/protocol.md, `clipboard_get` and `clipboard_set`; the Java agent's
core/Agent and platform's clipboardText / setClipboardText): the primary clip read and set as the
shell, a set clip carrying SystemUI's suppress extra so that no clipboard overlay shows for it.
"""

from __future__ import annotations

from typing import Any

from pytest_mobile_agent.virtual.agent.params import RequestError
from pytest_mobile_agent.virtual.ui.clipboard import SHELL_PACKAGE, Clip, ClipRefused


class ClipboardAccess:
    def __init__(self, ui: Any) -> None:
        self.ui = ui

    def get(self, params: dict[str, Any], deadline: float) -> dict[str, Any]:
        return {"text": self.ui.clipboard}

    def set(self, params: dict[str, Any], deadline: float) -> dict[str, Any]:
        text = params.get("text")
        if text is not None and not isinstance(text, str):
            raise RequestError("invalid_params", "text must be a string or null")
        try:
            if text is None:
                self.ui.clear_clip()
            else:
                self.ui.set_clip(Clip(text).unseen(), source=SHELL_PACKAGE)
        except ClipRefused as exc:
            raise RequestError("internal", f"the clipboard refused the clip: {exc}") from None
        return {}
