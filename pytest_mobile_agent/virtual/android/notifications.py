"""The notifications of the virtual device and the state of SystemUI's shade.

`cmd notification post [-t TITLE] TAG TEXT` (NotificationShellCommand, frameworks/base services/
core/java/com/android/server/notification/NotificationShellCommand.java) posts as the shell
(com.android.shell); a post with a tag already posted replaces that notification. The shade is
expanded by `cmd statusbar expand-notifications` and collapsed by `cmd statusbar collapse`
(StatusBarShellCommand), the UI draws it (ui/shade.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

SHELL_PACKAGE = "com.android.shell"


@dataclass(frozen=True)
class Notification:
    package: str
    tag: str
    title: str
    text: str


@dataclass
class Notifications:
    posted: list[Notification] = field(default_factory=list)
    shade_expanded: bool = False
    listeners: list[Callable[[], None]] = field(default_factory=list)

    def post(self, notification: Notification) -> None:
        self.posted = [n for n in self.posted
                       if (n.package, n.tag) != (notification.package, notification.tag)]
        self.posted.insert(0, notification)
        self._changed()

    def cancel(self, package: str, tag: str) -> None:
        self.posted = [n for n in self.posted if (n.package, n.tag) != (package, tag)]
        self._changed()

    def expand(self, expanded: bool) -> None:
        self.shade_expanded = expanded
        self._changed()

    def _changed(self) -> None:
        for listener in list(self.listeners):
            listener()
