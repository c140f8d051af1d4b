"""Text entry (the Java agent's `input/TextEntry` and `core/Agent.text`): set directly where the node
accepts it, else key events when the virtual key map types every character, else a paste from the
clipboard, which is restored afterwards. `keys` and `clipboard` focus the node first and insert at
its cursor.

As the Java agent answers: a direct set the app refuses is `accepted: false` (a node that does not
offer ACTION_SET_TEXT at all is `invalid_params`); the key method ANDs every key's verdict; the
clipboard method is accepted only when the field's text changed, by ACTION_PASTE or, where the app
refuses that, by KEYCODE_PASTE injected waiting for the app to finish it (TextView.doKeyDown pastes
on the DOWN, reading the clip on the app's UI thread), so the user's clip goes back only after the
app read the pasted one; a clip the shell cannot read is left alone, never cleared.

Focus is decided live (issue 37, item 3): before every key DOWN and before KEYCODE_PASTE the
device's input focus must be the target node, else the text answers `accepted: false` with the
`reason` and nothing more is injected. A paste is accepted only when the field came to hold the
pasted text (a password field, read masked: grew by its length). Where the clipboard may not be read
(root, a locked device: clipboard.read_refusal) the paste neither saves nor restores.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from pytest_mobile_agent.virtual.agent.clipboard import read_refusal
from pytest_mobile_agent.virtual.agent.input import Injector
from pytest_mobile_agent.virtual.agent.params import RequestError, int_param
from pytest_mobile_agent.virtual.ui import KEY_MAP
from pytest_mobile_agent.virtual.ui.clipboard import SHELL_PACKAGE, Clip, ClipRefused
from pytest_mobile_agent.virtual.ui.node import Node
from pytest_mobile_agent.virtual.ui.system import KEYCODE_PASTE

log = logging.getLogger("pytest_mobile_agent.virtual")

METHODS = ("auto", "direct", "keys", "clipboard")
PASTE_ARRIVAL_MS = 1_000  # TextEntry.PASTE_ARRIVAL_MS: how long a paste may take to show in the field
PASTE_POLL_MS = 16  # TextEntry.PASTE_POLL_MS
PASTE_KEY_WAIT_MS = 2_000  # TextEntry.PASTE_KEY_WAIT_MS: how long a paste key may hold the input lock


class Unreadable:
    """What the save of the clipboard holds for a clip the shell may not read (Platform.UNREADABLE_CLIP)."""


UNREADABLE = Unreadable()
SavedClip = Clip | Unreadable | None


class Refused(Exception):  # noqa: N818 - an outcome, not a failure
    """The text stops here: `accepted: false` with this reason."""


class TextEntry:
    def __init__(self, injector: Injector) -> None:
        self.injector = injector
        self.ui = injector.ui
        self.gate = injector.gate
        self.agent_uid = 2000
        self.toasts: Any = None

    def text(self, params: dict[str, Any], deadline: float) -> dict[str, Any]:
        """Params read in the Java agent's order (node, text, method), so a request with several
        faults gets the same error from both agents."""
        node_id = None if params.get("node") is None else int_param(params, "node", minimum=1)
        text = _string(params, "text", None)
        method = _string(params, "method", "auto")
        with self.injector.injecting():
            node = self._target(node_id)
            used = self._choose(node, text) if method == "auto" else method
            if used == "clipboard" and self.toasts is not None:
                self.toasts.expect_system_toasts(2 if read_refusal(self.ui, self.agent_uid) is None else 1)
            try:
                accepted = self._enter(node, text, used, method, deadline)
            except Refused as refused:
                return {"accepted": False, "method": used, "reason": str(refused)}
            finally:
                self.injector.own_input()
        return {"accepted": accepted, "method": used}

    def _enter(self, node: Node, text: str, used: str, asked: str, deadline: float) -> bool:
        if used == "direct":
            if not node.accepts_set_text:
                raise RequestError("invalid_params", f"node {node.uid} does not accept text set directly")
            return self.ui.set_text(node, text)
        if used == "keys":
            return self._type(node, text)
        if used == "clipboard":
            return self._paste(node, text, deadline)
        raise RequestError("invalid_params", f"method must be one of auto, direct, keys, clipboard, not {asked}")

    @staticmethod
    def _choose(node: Node, text: str) -> str:
        if node.accepts_set_text:
            return "direct"
        if all(ch in KEY_MAP for ch in text):
            return "keys"
        return "clipboard"

    def _type(self, node: Node, text: str) -> bool:
        if any(ch not in KEY_MAP for ch in text):
            raise RequestError("invalid_params", "no key map types every character of the text; use auto or clipboard")
        self._focus(node)
        accepted = True
        for ch in text:
            self._require_focus(node)
            accepted &= self.injector.key(*KEY_MAP[ch])  # every key goes out, refused or not
        return accepted

    def _paste(self, node: Node, text: str, deadline: float) -> bool:
        """The text and the restored clip both carry SystemUI's suppress extra (no clipboard
        overlay on Android 13+); a clip the shell may not put back never masks the paste."""
        refusal = read_refusal(self.ui, self.agent_uid)
        saved = self._save_clip() if refusal is None else UNREADABLE
        restore = True
        try:
            self.ui.set_clip(Clip(text).unseen(), source=SHELL_PACKAGE)
            self._focus(node)
            before = self._live_text(node)
            if not self.ui.paste(node):
                self._require_focus(node)
                wait_ms = max(0, round(min(PASTE_KEY_WAIT_MS, (deadline - time.monotonic()) * 1000)))
                finished = self.injector.key_and_wait(KEYCODE_PASTE, 0, wait_ms)
                if finished is None:
                    restore = False  # the pending paste reads the clip: the user's would be pasted
                    raise Refused(f"the app did not finish the paste key within {wait_ms} ms: the pasted text "
                                  "stays on the clipboard")
                if not finished:
                    return False
            if text == "" or self._arrived(node, before, text):
                return True
            raise Refused("the field's text did not come to hold the pasted text")
        finally:
            if restore:
                self._restore(saved)

    def _arrived(self, node: Node, before: str | None, text: str) -> bool:
        """Whether the field's text came to hold the pasted text within PASTE_ARRIVAL_MS (a
        toolkit that renders from state shows it a frame after it handled the paste); any change
        is not enough, a clip set that silently failed pastes the user's old clip."""
        end = time.monotonic() + PASTE_ARRIVAL_MS / 1000.0
        while True:
            now = self._live_text(node)
            if now is not None and _holds(now, before, text, node.password):
                return True
            if time.monotonic() >= end:
                return False
            self.gate.sleep_until(min(end, time.monotonic() + PASTE_POLL_MS / 1000.0))

    def _live_text(self, node: Node) -> str | None:
        """The node's text as the app shows it now (after the input queued before); None once gone."""
        located = self.ui.find(node.uid)
        return None if located is None else located[1].text

    def _save_clip(self) -> SavedClip:
        """The user's clip (wrappers/Clipboards.save): None for an empty clipboard, UNREADABLE for a
        clip hasPrimaryClip reports and the shell's read does not give."""
        clip = self.ui.shell_clip()
        if clip is None and self.ui.has_clip():
            return UNREADABLE
        return clip

    def _restore(self, saved: SavedClip) -> None:
        """Puts the user's clip back (unseen); an unreadable one is left alone, since clearing the
        clipboard would wipe it for good (the paste's clip stays)."""
        if isinstance(saved, Unreadable):
            return
        try:
            if saved is None:
                self.ui.clear_clip()
            else:
                self.ui.set_clip(saved.unseen(), source=SHELL_PACKAGE)
        except ClipRefused as exc:
            log.warning("the previous clip could not be put back: %s", exc)

    def _focus(self, node: Node) -> None:
        """Gives the node input focus unless the live focus is on it (never the snapshot's flag)."""
        if self.ui.focused_now() is not node:
            self.ui.focus(node)  # keys and pastes go where the focus is, at its cursor
        self._require_focus(node)

    def _require_focus(self, node: Node) -> None:
        live = self.ui.focused_now()
        if live is node:
            return
        if live is None:
            raise Refused(f"input focus left node {node.uid} (no field has it now): nothing more was typed")
        other = f" ({live.res})" if live.res else ""
        raise Refused(f"input focus moved from node {node.uid} to another field{other}: nothing more was typed")

    def _target(self, node_id: int | None) -> Node:
        if node_id is None:
            node = self.ui.focused
            if node is None:
                raise RequestError("invalid_params", "no node has input focus; name the node")
        else:
            located = self.ui.find(node_id)
            if located is None:
                raise RequestError("not_found", f"node {node_id} is not known to the agent")
            node = located[1]
        if not node.editable:
            raise RequestError("invalid_params", f"node {node.uid} is not editable")
        return node


def _holds(now: str, before: str | None, text: str, masked: bool) -> bool:
    """TextEntry.holds: the text is in the field now (a masked field: it grew by its length)."""
    had = 0 if before is None else len(before)
    if masked:
        return len(now) >= had + len(text) and now != before
    return text in now and now != before


def _string(params: dict[str, Any], key: str, default: str | None) -> str:
    """A string param (core/Params.string): missing or null is the default, or required."""
    value = params.get(key)
    if value is None:
        if default is None:
            raise RequestError("invalid_params", f"`{key}` is required")
        return default
    if not isinstance(value, str):
        raise RequestError("invalid_params", f"`{key}` must be a string")
    return value
