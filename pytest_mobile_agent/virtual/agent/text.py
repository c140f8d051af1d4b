"""Text entry (the Java agent's `input/TextEntry`): set directly where the node accepts it, else
key events when the virtual key map types every character, else a paste from the clipboard, which
is restored afterwards. `keys` and `clipboard` focus the node first and insert at its cursor."""

from __future__ import annotations

import logging
from typing import Any

from pytest_mobile_agent.virtual.agent.input import Injector
from pytest_mobile_agent.virtual.agent.params import JAVA_INT_MAX, RequestError, is_int
from pytest_mobile_agent.virtual.ui import KEY_MAP
from pytest_mobile_agent.virtual.ui.clipboard import SHELL_PACKAGE, Clip, ClipRefused

log = logging.getLogger("pytest_mobile_agent.virtual")

METHODS = ("auto", "direct", "keys", "clipboard")


class TextEntry:
    def __init__(self, injector: Injector) -> None:
        self.injector = injector
        self.ui = injector.ui

    def text(self, params: dict[str, Any], deadline: float) -> dict[str, Any]:
        text = params.get("text")
        if not isinstance(text, str):
            raise RequestError("invalid_params", "text must be a string")
        method = params.get("method", "auto")
        if method not in METHODS:
            raise RequestError("invalid_params", f"unknown text method {method!r}")
        node_id = params.get("node")
        if node_id is not None and not (is_int(node_id) and 1 <= node_id <= JAVA_INT_MAX):
            raise RequestError("invalid_params", "node must be a node id or null")
        with self.injector.injecting(), self.ui.lock:
            node = self._target(node_id)
            used = self._choose(node, text) if method == "auto" else method
            if used == "direct":
                if not self.ui.set_text(node, text):
                    raise RequestError("invalid_params", f"node {node.uid} does not accept text set directly")
                self.injector.own_input()
                return {"accepted": True, "method": used}
            if not node.focused:
                self.ui.focus(node)  # keys and pastes go where the focus is, at its cursor
            if used == "keys":
                self._type(text)
            else:
                self._paste(node, text)
            self.injector.own_input()
        return {"accepted": True, "method": used}

    @staticmethod
    def _choose(node: Any, text: str) -> str:
        if node.accepts_set_text:
            return "direct"
        if all(ch in KEY_MAP for ch in text):
            return "keys"
        return "clipboard"

    def _type(self, text: str) -> None:
        missing = sorted({ch for ch in text if ch not in KEY_MAP})
        if missing:
            raise RequestError("invalid_params", f"no key map types {''.join(missing)!r}")
        for ch in text:
            self.injector.key(*KEY_MAP[ch])

    def _paste(self, node: Any, text: str) -> None:
        """The text and the restored clip both carry SystemUI's suppress extra (no clipboard
        overlay on Android 13+); a clip the shell may not put back never masks the paste."""
        saved = self.ui.clip
        self.ui.set_clip(Clip(text).unseen(), source=SHELL_PACKAGE)
        try:
            pasted = self.ui.paste(node)
        finally:
            self._restore(saved)
        if not pasted:
            raise RequestError("invalid_params", f"node {node.uid} does not accept a paste")

    def _restore(self, saved: Clip | None) -> None:
        try:
            if saved is None:
                self.ui.clear_clip()
            else:
                self.ui.set_clip(saved.unseen(), source=SHELL_PACKAGE)
        except ClipRefused as exc:
            log.warning("the previous clip could not be put back: %s", exc)

    def _target(self, node_id: int | None) -> Any:
        if node_id is None:
            node = self.ui.focused
            if node is None:
                raise RequestError("invalid_params", "no node has the input focus")
        else:
            located = self.ui.find(node_id)
            if located is None:
                raise RequestError("not_found", f"node {node_id} is not known")
            node = located[1]
        if not node.editable:
            raise RequestError("invalid_params", f"node {node.uid} is not editable")
        return node
