"""The clipboard as text, through the agent: protocol 1's `clipboard_get` and `clipboard_set`
(docs/protocol.md), which read and set the primary clip as the shell through IClipboard, the clip
carrying SystemUI's SUPPRESS_CLIPBOARD_OVERLAY extra so that Android 13+ shows no overlay for it
(ClipboardListener.shouldSuppressOverlay), as the agent's paste does. The text the test found is
put back at the end of the test (an empty clipboard cleared again).
"""

from __future__ import annotations

from collections.abc import Callable

from pytest_mobile_agent.adb import Device
from pytest_mobile_agent.arguments import check_text
from pytest_mobile_agent.control import shell
from pytest_mobile_agent.control.journal import Journal
from pytest_mobile_agent.control.means import Paths
from pytest_mobile_agent.errors import AgentError, InvalidArgument, NotSupported, StateRefused

REQUEST_TIMEOUT = 5.0

ACCESS_NOTIFICATIONS = "clipboard_show_access_notifications"
"""Settings.Secure.CLIPBOARD_SHOW_ACCESS_NOTIFICATIONS: ClipboardService.showAccessNotificationLocked
reads it (default on, from DeviceConfig) before it shows "<app> pasted from your clipboard"
(services/core/java/com/android/server/clipboard/ClipboardService.java, Android 12 to 16)."""


def hide_access_toasts(device: Device) -> Callable[[], None]:
    """Turn ClipboardService's access toasts off (the secure setting to 0) and return what puts the
    setting back as it was (deleted again when it was never set). Every paste shows one for the app
    that reads the pasted clip, and the agent's own reads one for the shell; NotificationManagerService
    shows one toast at a time, so an app's toast right after a paste waits behind it."""
    before = shell.text(device, f"settings get secure {ACCESS_NOTIFICATIONS}").strip()
    undo = f"settings delete secure {ACCESS_NOTIFICATIONS}" if before in ("", "null") else \
        f"settings put secure {ACCESS_NOTIFICATIONS} {before}"
    shell.run(device, f"settings put secure {ACCESS_NOTIFICATIONS} 0", what="turning the clipboard's access toasts off")

    def restore() -> None:
        shell.run(device, undo, what="restoring the clipboard's access toasts")

    return restore


class Clipboard:
    def __init__(self, paths: Paths, journal: Journal) -> None:
        self.paths = paths
        self.journal = journal

    def text(self) -> str | None:
        """The primary clip's text; None when the clipboard is empty."""
        result = self._request("clipboard_get", {}, "reading the clipboard")
        text = result.get("text")
        return text if isinstance(text, str) else None

    def set(self, text: str) -> None:
        """Set the primary clip to `text`, without the clipboard overlay; InvalidArgument for
        anything but a str (None too: `clear()` empties the clipboard)."""
        if text is None:
            raise InvalidArgument("text must be a str, not None: device_control.clear_clipboard() empties the "
                                  "clipboard")
        if not isinstance(text, str):
            raise InvalidArgument(f"text must be a str, not {type(text).__name__}")
        check_text("text", text)
        self._change(text)

    def clear(self) -> None:
        """Empty the clipboard (the clip the test found comes back at its end)."""
        self._change(None)

    def _change(self, text: str | None) -> None:
        if not self.journal.knows("clipboard"):
            before = self.text()
            self.journal.remember("clipboard", lambda: self._set(before, "restoring the clipboard"))
        self._set(text, "setting the clipboard" if text is not None else "clearing the clipboard")
        if self.text() != text:
            raise StateRefused(f"setting the clipboard: it reads {self.text()!r} after setting {text!r}")

    def _set(self, text: str | None, what: str) -> None:
        self._request("clipboard_set", {"text": text}, what)

    def _request(self, method: str, params: dict[str, object], what: str) -> dict[str, object]:
        agent = self.paths.needs_agent(what)
        try:
            return agent.request(method, params, timeout=REQUEST_TIMEOUT)
        except AgentError as exc:
            if exc.code == "unknown_method":
                raise NotSupported(f"{what}: the agent on {self.paths.serial} has no {method} (an agent older than "
                                   "this package's)", advice="Deploy this package's agent (`--agent-force`)") from None
            raise StateRefused(f"{what}: the agent answered {exc.code}: {exc.message}") from None
