"""Element: a handle on one node of the mirror's replica, by its stable ref.

An element reads its node from the replica whenever it is asked, so it follows the node across
re-reads (the ref stays while the node stays where it was) and fails with StaleElement once the
node is gone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pytest_mobile_agent.errors import hide_our_frames
from pytest_mobile_agent.mirror.replica import Entry
from pytest_mobile_agent.mirror.selectors import describe_entry
from pytest_mobile_agent.session.backends import Ack, Bounds, Node, Window

if TYPE_CHECKING:
    from pytest_mobile_agent.mirror.mirror import Mirror

__tracebackhide__ = hide_our_frames  # pytest reports our failures at the test's line, not in these frames


class Element:
    """One node on the screen: `screen.find(text="Login").tap()`."""

    __slots__ = ("_mirror", "ref")

    def __init__(self, mirror: Mirror, ref: int) -> None:
        self._mirror = mirror
        self.ref = ref

    # --- what it is ------------------------------------------------------------------------------

    @property
    def entry(self) -> Entry:
        return self._mirror._entry(self.ref)

    @property
    def node(self) -> Node:
        """The agent's node as the latest read showed it."""
        return self.entry.node

    @property
    def exists(self) -> bool:
        """Whether the node is still in the replica (after bringing it up to date)."""
        return self._mirror._find_entry(self.ref) is not None

    @property
    def text(self) -> str | None:
        return self.node.text

    @property
    def desc(self) -> str | None:
        """The content description."""
        return self.node.desc

    @property
    def resource_id(self) -> str | None:
        return self.node.res

    @property
    def hint(self) -> str | None:
        return self.node.hint

    @property
    def class_name(self) -> str:
        return self.node.class_name

    @property
    def bounds(self) -> Bounds:
        """left, top, right, bottom in physical pixels."""
        return self.node.bounds

    @property
    def center(self) -> tuple[int, int]:
        left, top, right, bottom = self.node.bounds
        return ((left + right) // 2, (top + bottom) // 2)

    @property
    def clickable(self) -> bool:
        return self.node.clickable

    @property
    def focused(self) -> bool:
        return self.node.focused

    @property
    def enabled(self) -> bool:
        return self.node.enabled

    @property
    def checked(self) -> bool:
        return self.node.checked

    @property
    def selected(self) -> bool:
        return self.node.selected

    @property
    def editable(self) -> bool:
        return self.node.editable

    @property
    def scrollable(self) -> bool:
        return self.node.scrollable

    @property
    def visible(self) -> bool:
        return self.node.visible

    @property
    def window(self) -> Window:
        return self.entry.window

    @property
    def parent(self) -> Element | None:
        parent = self.entry.parent
        return Element(self._mirror, parent) if parent is not None else None

    @property
    def children(self) -> list[Element]:
        view = self._mirror._view()
        return [Element(self._mirror, e.ref) for e in view.children(self.entry)]

    # --- queries within ---------------------------------------------------------------------------

    def find(self, **criteria: Any) -> Element:
        """The first descendant matching the criteria (see `Mirror.find`)."""
        return self._mirror.find(within=self, **criteria)

    def find_all(self, **criteria: Any) -> list[Element]:
        return self._mirror.find_all(within=self, **criteria)

    def wait_for(self, timeout: float | None = None, **criteria: Any) -> Element:
        return self._mirror.wait_for(timeout=timeout, within=self, **criteria)

    def wait_gone(self, timeout: float | None = None) -> None:
        """Wait until this node is no longer on the screen."""
        self._mirror.wait_until(lambda view: view.entry(self.ref) is None, timeout, f"@{self.ref} to go")

    # --- actions ---------------------------------------------------------------------------------

    def tap(self) -> Ack:
        return self._mirror.tap(self)

    def long_press(self, hold: float = 0.6) -> Ack:
        return self._mirror.long_press(self, hold=hold)

    def type_text(self, text: str, method: str = "auto") -> Ack:
        """Focus the node (a tap, when it is not focused) and set its text; `method` as the agent's."""
        return self._mirror.type_text(text, self, method=method)

    def swipe(self, direction: str = "up", distance: float = 0.6, duration: float = 0.3, resting: bool = False) -> Ack:
        """Swipe inside the node: `direction` the finger's (up, down, left, right), `distance` a share
        of the node's size."""
        return self._mirror.swipe_within(self, direction, distance=distance, duration=duration, resting=resting)

    def scroll_until(self, direction: str = "down", max_swipes: int = 10, **criteria: Any) -> Element:
        """Scroll this container until a descendant matches the criteria."""
        return self._mirror.scroll_until(direction=direction, max_swipes=max_swipes, container=self, **criteria)

    def dump(self) -> str:
        return self._mirror.dump(self)

    # --- plumbing --------------------------------------------------------------------------------

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Element) and other._mirror is self._mirror and other.ref == self.ref

    def __hash__(self) -> int:
        return hash((id(self._mirror), self.ref))

    def __repr__(self) -> str:
        entry = self._mirror._find_entry(self.ref, refresh=False)
        if entry is None:
            return f"<Element @{self.ref} (gone)>"
        return f"<Element {describe_entry(entry)}>"
