"""The notification shade: open it, close it, and find a notification in it by its text as the
screen sees the shade (SystemUI's notification rows: the app name, `android:id/title`,
`android:id/text`).

`cmd statusbar expand-notifications` and `cmd statusbar collapse` (StatusBarShellCommand, Android
8+) open and close it; a shade the test opened is closed at the end of the test.
"""

from __future__ import annotations

from pytest_mobile_agent.arguments import check_text, check_timeout
from pytest_mobile_agent.control import shell
from pytest_mobile_agent.control.journal import Journal
from pytest_mobile_agent.control.means import Paths
from pytest_mobile_agent.errors import InvalidArgument
from pytest_mobile_agent.mirror.element import Element

SYSTEMUI = "com.android.systemui"


class Shade:
    def __init__(self, paths: Paths, journal: Journal) -> None:
        self.paths = paths
        self.journal = journal

    def open(self) -> None:
        device = self.paths.device
        self.journal.remember("notification shade", lambda: shell.run(device, "cmd statusbar collapse",
                                                                      what="closing the notification shade"))
        shell.run(device, "cmd statusbar expand-notifications", what="opening the notification shade")

    def close(self) -> None:
        shell.run(self.paths.device, "cmd statusbar collapse", what="closing the notification shade")

    def find(self, text: str, timeout: float) -> Element:
        """Open the shade and wait for a notification showing `text` (a part of its title or text)."""
        if not isinstance(text, str) or not text:
            raise InvalidArgument(f"text must be a non-empty str, not {text!r}")
        check_text("text", text)
        check_timeout("timeout", timeout)
        screen = self.paths.needs_screen("finding a notification")
        self.open()
        return screen.wait_for(timeout=timeout, text_contains=text, package=SYSTEMUI)
