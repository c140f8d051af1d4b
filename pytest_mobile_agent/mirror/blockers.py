"""What stood in a timed-out wait's way (issue 41, item 7): the window that took the front from
another package's (a permission prompt, a system dialog: the element looked for may be there,
covered, or its window gone from the tree), and the watchers registered that never matched, each
with the node most like what it looks for (a watcher on "Don't allow" beside the device's "Don’t
allow").
"""

from __future__ import annotations

from collections.abc import Iterable

from pytest_mobile_agent.mirror.replica import View
from pytest_mobile_agent.mirror.selectors import nearest
from pytest_mobile_agent.mirror.watchers import Watcher
from pytest_mobile_agent.session.backends import Window

SYSTEM_BARS = ("statusbar", "navigationbar")
"""SystemUI's bars (window titles StatusBar, NavigationBar0, ...): always above, never "the front"."""


def front_window(view: View | None) -> Window | None:
    """The window in front: the focused one, else the top-most that is neither the keyboard nor a
    system bar."""
    if view is None:
        return None
    candidates = [w for w in view.windows if w.type != "input_method"
                  and not (w.title or "").lower().startswith(SYSTEM_BARS)]
    return next((w for w in candidates if w.focused), candidates[0] if candidates else None)


def describe_window(window: Window) -> str:
    name = repr(window.title) if window.title else window.type
    return f"{name} ({window.package})" if window.package and window.package != window.title else name


class Fronts:
    """The window in front as the reads saw it, and the one of another package it took over from."""

    def __init__(self) -> None:
        self.front: Window | None = None
        self.taken_from: Window | None = None
        """The previous front of another package, while the current front holds."""

    def saw(self, view: View | None) -> None:
        front = front_window(view)
        if front is None or (self.front is not None and front.id == self.front.id):
            return
        if self.front is not None and front.package != self.front.package:
            self.taken_from = self.front
        elif self.taken_from is not None and front.package == self.taken_from.package:
            self.taken_from = None  # the package it had taken the front from is back
        self.front = front


def blockers(view: View, taken_from: Window | None, watchers: Iterable[Watcher]) -> list[str]:
    """The lines a wait's timeout adds: the window in front when it took the front from another
    package's, and the watchers that never matched with their nearest candidate."""
    lines = []
    front = front_window(view)
    if taken_from is not None and front is not None and front.package != taken_from.package:
        gone = "" if view.snapshot.window(taken_from.id) is not None else ", whose window is no longer on the screen"
        lines.append(f"the window {describe_window(front)} took the front from {describe_window(taken_from)}{gone}")
    for watcher in watchers:
        if watcher.reaction is None or watcher.fired:
            continue
        like = nearest(watcher.selector, view, limit=1)
        lines.append(f"watcher {watcher.name!r} never matched; " + (f"nearest: {like[0]}" if like else
                                                                     "nothing on the screen is like it"))
    return lines
