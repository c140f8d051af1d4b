"""Element: a handle on one node of the mirror's replica, by its stable ref.

An element reads its node from the replica whenever it is asked, so it follows the node across
re-reads (the ref stays while the node stays where it was) and fails with StaleElement once the
node is gone.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, TypeVar

from pytest_mobile_agent.errors import hide_our_frames
from pytest_mobile_agent.mirror.replica import Entry, View
from pytest_mobile_agent.mirror.selectors import describe_entry
from pytest_mobile_agent.mirror.steps import Steps, recorded
from pytest_mobile_agent.mirror.vocabulary import (
    Criteria,
    DescendantCriteria,
    Direction,
    FieldCriteria,
    Unpack,
)
from pytest_mobile_agent.session.backends import Ack, Bounds, Node, TextMethod, Window

T = TypeVar("T")


class ElementHost(Protocol):
    """What an element needs of the screen it was found on (`Mirror` is the one): its replica by
    ref, the queries and actions an element offers on itself, and the steps its calls go into."""

    steps: Steps

    def snapshot(self) -> View: ...

    def entry(self, ref: int) -> Entry: ...

    def lookup(self, ref: int, *, read: bool = True) -> Entry | None: ...

    def find(self, **criteria: Unpack[Criteria]) -> Element: ...

    def find_all(self, **criteria: Unpack[Criteria]) -> list[Element]: ...

    def wait_for(self, timeout: float | None = None, **criteria: Unpack[Criteria]) -> Element: ...

    def wait_until(self, condition: Callable[[View], T | None], timeout: float | None = None,
                   what: str = "a condition") -> T: ...

    def tap(self, element: Element | None = None, *, timeout: float | None = None,
            **criteria: Unpack[Criteria]) -> Ack: ...

    def long_press(self, element: Element | None = None, hold: float = 0.6, *, timeout: float | None = None,
                   **criteria: Unpack[Criteria]) -> Ack: ...

    def type_text(self, text: str, element: Element | None = None, method: TextMethod = "auto", *,
                  timeout: float | None = None, **criteria: Unpack[FieldCriteria]) -> Ack: ...

    def swipe_within(self, element: Element, direction: Direction, *, distance: float = 0.6, duration: float = 0.3,
                     resting: bool = False, timeout: float | None = None) -> Ack: ...

    def scroll_until(self, direction: Direction = "down", max_swipes: int = 10, container: Element | None = None, *,
                     timeout: float | None = None, **criteria: Unpack[Criteria]) -> Element: ...

    def dump(self, within: Element | None = None, max_lines: int | None = None) -> str: ...

__tracebackhide__ = hide_our_frames  # pytest reports our failures at the test's line, not in these frames


class Element:
    """One node on the screen: `screen.find(text="Login").tap()`."""

    __slots__ = ("_screen", "ref")

    def __init__(self, screen: ElementHost, ref: int) -> None:
        self._screen = screen
        self.ref = ref

    @property
    def steps(self) -> Steps:
        """The steps of the screen this element was found on: its calls are steps there."""
        return self._screen.steps

    # --- what it is ------------------------------------------------------------------------------

    @property
    def entry(self) -> Entry:
        return self._screen.entry(self.ref)

    @property
    def node(self) -> Node:
        """The agent's node as the latest read showed it."""
        return self.entry.node

    @property
    def exists(self) -> bool:
        """Whether the node is still in the replica (after bringing it up to date)."""
        return self._screen.lookup(self.ref) is not None

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
        return Element(self._screen, parent) if parent is not None else None

    @property
    def children(self) -> list[Element]:
        view = self._screen.snapshot()
        return [Element(self._screen, e.ref) for e in view.children(self.entry)]

    # --- queries within ---------------------------------------------------------------------------

    @recorded("element.find")
    def find(self, **criteria: Unpack[DescendantCriteria]) -> Element:
        """The first descendant matching the criteria (see `Mirror.find`)."""
        return self._screen.find(within=self, **criteria)

    @recorded("element.find_all")
    def find_all(self, **criteria: Unpack[DescendantCriteria]) -> list[Element]:
        return self._screen.find_all(within=self, **criteria)

    @recorded("element.wait_for")
    def wait_for(self, timeout: float | None = None, **criteria: Unpack[DescendantCriteria]) -> Element:
        return self._screen.wait_for(timeout=timeout, within=self, **criteria)

    @recorded("element.wait_gone")
    def wait_gone(self, timeout: float | None = None) -> None:
        """Wait until this node is no longer on the screen."""
        self._screen.wait_until(lambda view: view.entry(self.ref) is None, timeout, f"@{self.ref} to go")

    # --- actions ---------------------------------------------------------------------------------

    # Each waits up to `timeout` (default the screen's action timeout) until the node is visible,
    # enabled and still (mirror/actionable.py); StaleElement once it is gone.

    @recorded("element.tap")
    def tap(self, *, timeout: float | None = None) -> Ack:
        return self._screen.tap(self, timeout=timeout)

    @recorded("element.long_press")
    def long_press(self, hold: float = 0.6, *, timeout: float | None = None) -> Ack:
        return self._screen.long_press(self, hold=hold, timeout=timeout)

    @recorded("element.type_text")
    def type_text(self, text: str, method: TextMethod = "auto", *, timeout: float | None = None) -> Ack:
        """Focus the node (a tap, when it is not focused) and set its text; `method` as the agent's."""
        return self._screen.type_text(text, self, method=method, timeout=timeout)

    @recorded("element.swipe")
    def swipe(self, direction: Direction = "up", distance: float = 0.6, duration: float = 0.3,
              resting: bool = False, *, timeout: float | None = None) -> Ack:
        """Swipe inside the node: `direction` the finger's (up, down, left, right), `distance` a share
        of the node's size."""
        return self._screen.swipe_within(self, direction, distance=distance, duration=duration, resting=resting,
                                         timeout=timeout)

    @recorded("element.scroll_until")
    def scroll_until(self, direction: Direction = "down", max_swipes: int = 10, *, timeout: float | None = None,
                     **criteria: Unpack[DescendantCriteria]) -> Element:
        """Scroll this container until a descendant matches the criteria."""
        return self._screen.scroll_until(direction=direction, max_swipes=max_swipes, container=self,
                                         timeout=timeout, **criteria)

    def dump(self) -> str:
        return self._screen.dump(self)

    # --- plumbing --------------------------------------------------------------------------------

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Element) and other._screen is self._screen and other.ref == self.ref

    def __hash__(self) -> int:
        return hash((id(self._screen), self.ref))

    def __repr__(self) -> str:
        entry = self._screen.lookup(self.ref, read=False)
        if entry is None:
            return f"<Element @{self.ref} (gone)>"
        return f"<Element {describe_entry(entry)}>"
