"""Actionability: what an action waits for before it touches an element (issue 25, item 1).

`tap`, `long_press`, `type_text`, `swipe_within`, `scroll_until` and the Element actions wait up to
their `timeout` (default `--android-action-timeout`, 5 s) until the element

* exists (the first match of the criteria, or the element given, which must still be there),
* is visible and enabled and has an area on the screen to touch: a part of it inside the display,
  its window and its scrolling containers that no window above covers (mirror/visibility.py); a node
  scrolled out of its container is scrolled into view first (SCROLLS_INTO_VIEW swipes at most), as
  uiautomator2's and Maestro's taps do,
* receives the touch (issue 36): the action's point lies in the element's visible part with no
  window above its own over it, where the input dispatcher would give the touch to that window
  (mirror/receives_touch.py). When the keyboard covers all of it, the action scrolls it above the
  keyboard within its scrollable ancestor, else hides the keyboard (BACK, once); when a dialog or an
  overlay covers it, the action waits (a watcher may dismiss it) and its timeout names the covering
  window and its node. `tap_at` stays raw: it touches where it is told,
* holds still: two consecutive looks show the same bounds.

This is Playwright's actionability rule (playwright.dev/docs/actionability: visible, stable, enabled;
"stable" is the same bounding box on two consecutive animation frames). The second look is as cheap
as the path allows: with the emulator's frames, frames that show nothing moving since the replica was
read; else a bounds probe of the one node (docs/protocol.md, `bounds`); else a fresh read.

`find` stays immediate: a query answers for the screen as it is now, an action for the screen it
can act on.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from pytest_mobile_agent.mirror.receives_touch import Cover, area_above, covered_by
from pytest_mobile_agent.mirror.replica import Entry, View
from pytest_mobile_agent.mirror.visibility import scrollable_ancestor, touchable_part, visible_part, where
from pytest_mobile_agent.session.backends import Bounds

SCROLLS_INTO_VIEW = 10
"""Swipes an action makes at most to bring its element into view."""

ScrollIntoView = Callable[[View, Entry, Entry, Bounds | None], bool]
"""`scroll(view, container, target, box)`: one swipe of the container that moves the target toward
`box` (None: the container's visible part); False when the container cannot move that way."""

HideKeyboard = Callable[[View], bool]
"""`hide(view)`: send what hides the keyboard shown in the view (BACK); False when nothing was sent."""


def not_actionable(view: View, entry: Entry) -> str | None:
    """Why the node cannot take an action now, or None when it can (stillness aside)."""
    node = entry.node
    left, top, right, bottom = node.bounds
    if right <= left or bottom <= top:
        return "it has no area on the screen to touch"
    if visible_part(view, entry) is None:
        return where(view, entry)
    if not node.visible:
        return "it is not visible"
    if not node.enabled:
        return "it is disabled"
    part, _ = touchable_part(view, entry)
    if part is None:
        cover = covered_by(view, entry)
        return f"it is covered by {cover.describe()}" if cover is not None else "it is covered by another window"
    return None


def _out_of_view(view: View, entry: Entry) -> Entry | None:
    """The scrolling container to scroll when the node has no visible part but lies in one."""
    if visible_part(view, entry) is not None:
        return None
    return scrollable_ancestor(view, entry)


@dataclass
class Actionable:
    """The condition an action's wait checks on each look: the entry once it is actionable.

    `find(view)` is the element looked for (None while there is none); `still(entry)` takes the
    second look and says whether the bounds held; `scroll` brings an element scrolled out of its
    container into view. `reason` says why the latest look did not do; `relook` that the next look
    is due at once (the element moves, or was just scrolled)."""

    find: Callable[[View], Entry | None]
    still: Callable[[Entry], bool]
    scroll: ScrollIntoView | None = None
    hide_keyboard: HideKeyboard | None = None
    reason: str = "no element matches"
    scrolls: int = 0
    keyboard_hidden: bool = False
    """BACK was sent once for this action: never again (a second BACK would leave the screen)."""
    relook: bool = False
    _seen: tuple[int, Bounds] | None = field(default=None, init=False)

    def __call__(self, view: View) -> Entry | None:
        self.relook = False
        entry = self.find(view)
        if entry is None:
            self.reason, self._seen = "no element matches", None
            return None
        why = not_actionable(view, entry)
        if why is not None:
            self.reason, self._seen = why, None
            cover = covered_by(view, entry)
            if cover is not None and cover.is_keyboard:
                self._clear_keyboard(view, entry, cover)
            elif cover is None:
                self._scroll_into_view(view, entry)
            return None
        seen = (entry.ref, entry.node.bounds)
        if seen == self._seen:
            return entry  # two consecutive looks, the same bounds
        self._seen = seen
        if self.still(entry):
            return entry
        self.reason, self.relook = "it is moving", True
        return None

    def _scroll_into_view(self, view: View, entry: Entry) -> None:
        container = _out_of_view(view, entry)
        if container is None or self.scroll is None or self.scrolls >= SCROLLS_INTO_VIEW:
            return
        if self.scroll(view, container, entry, None):
            self.scrolls += 1
            self.relook = True
            self.reason += f" (scrolled toward it {self.scrolls} times)"

    def _clear_keyboard(self, view: View, entry: Entry, cover: Cover) -> None:
        """The keyboard covers the element: scroll it above the keyboard within its scrollable
        ancestor; where that cannot be done, hide the keyboard (once)."""
        if self._scroll_above(view, entry, cover.window.bounds):
            self.relook = True
            self.reason += f" (scrolled it above the keyboard {self.scrolls} times)"
            return
        if self.keyboard_hidden:
            self.reason += " (it stayed after the BACK that was to hide it)"
            return
        if self.hide_keyboard is None:
            return
        if self.hide_keyboard(view):
            self.keyboard_hidden = self.relook = True
            self.reason += " (the keyboard was hidden: nothing scrolls it clear)"

    def _scroll_above(self, view: View, entry: Entry, keyboard: Bounds) -> bool:
        container = scrollable_ancestor(view, entry)
        if container is None or self.scroll is None or self.scrolls >= SCROLLS_INTO_VIEW:
            return False
        box = visible_part(view, container)
        above = area_above(box, keyboard) if box is not None else None
        if above is None or not self.scroll(view, container, entry, above):
            return False
        self.scrolls += 1
        return True
