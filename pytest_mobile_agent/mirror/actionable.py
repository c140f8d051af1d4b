"""Actionability: what an action waits for before it touches an element (issue 25, item 1).

`tap`, `long_press`, `type_text`, `swipe_within`, `scroll_until` and the Element actions wait up to
their `timeout` (default `--android-action-timeout`, 5 s) until the element

* exists (the first match of the criteria, or the element given, which must still be there),
* is visible and enabled and has an area on the screen to touch,
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

from pytest_mobile_agent.mirror.replica import Entry, View
from pytest_mobile_agent.session.backends import Bounds


def not_actionable(entry: Entry) -> str | None:
    """Why the node cannot take an action now, or None when it can (stillness aside)."""
    node = entry.node
    if not node.visible:
        return "it is not visible"
    if not node.enabled:
        return "it is disabled"
    left, top, right, bottom = node.bounds
    if right <= left or bottom <= top:
        return "it has no area on the screen to touch"
    return None


@dataclass
class Actionable:
    """The condition an action's wait checks on each look: the entry once it is actionable.

    `find(view)` is the element looked for (None while there is none); `still(entry)` takes the
    second look and says whether the bounds held. `reason` says why the latest look did not do."""

    find: Callable[[View], Entry | None]
    still: Callable[[Entry], bool]
    reason: str = "no element matches"
    _seen: tuple[int, Bounds] | None = field(default=None, init=False)

    def __call__(self, view: View) -> Entry | None:
        entry = self.find(view)
        if entry is None:
            self.reason, self._seen = "no element matches", None
            return None
        why = not_actionable(entry)
        if why is not None:
            self.reason, self._seen = why, None
            return None
        seen = (entry.ref, entry.node.bounds)
        if seen == self._seen:
            return entry  # two consecutive looks, the same bounds
        self._seen = seen
        if self.still(entry):
            return entry
        self.reason = "it is moving"
        return None
