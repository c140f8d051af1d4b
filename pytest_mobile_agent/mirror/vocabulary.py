"""The words the screen's API takes, as types an IDE and mypy read: the criteria of a query (a
`TypedDict`, so `screen.find(txt="x")` is a type error and an editor offers every criterion), the
direction of a swipe or a scroll. The selectors check the same at run time (`InvalidSelector`).

    def test_login(screen: Screen) -> None:
        where: Criteria = {"text": "Login", "clickable": True}
        screen.find(**where).tap()
"""

from __future__ import annotations

import re
import sys
from typing import Literal, Protocol, TypedDict

if sys.version_info >= (3, 11):
    from typing import Unpack
else:  # typing_extensions, a dependency on 3.10 only (pyproject.toml)
    from typing_extensions import Unpack

__all__ = ["Anchor", "Criteria", "DescendantCriteria", "Direction", "FieldCriteria", "Unpack"]

Direction = Literal["up", "down", "left", "right"]
"""A swipe's direction is the finger's; a scroll's is the content's (down shows what is below)."""


class Anchor(Protocol):
    """What `within=` takes besides a ref: an element (anything that names its node's ref)."""

    @property
    def ref(self) -> int: ...


class _NodeCriteria(TypedDict, total=False):
    """Every criterion but `text` and `within` (README, "The `screen` reference"); every
    criterion given must hold. None is no criterion's value: `find(text=None)` would match any text,
    so it is a type error here and `InvalidSelector` at run time (leave the criterion out)."""

    text_contains: str
    text_matches: str | re.Pattern[str]
    """A regular expression, searched (`re.search`)."""
    id: str
    """The resource id, whole (`com.example:id/login`) or the part after `:id/` (`login`)."""
    desc: str
    """The content description, exact."""
    desc_contains: str
    class_name: str
    """The whole class name or its last part (`Button`)."""
    package: str
    clickable: bool
    long_clickable: bool
    focused: bool
    focusable: bool
    enabled: bool
    checked: bool
    selected: bool
    scrollable: bool
    editable: bool
    visible: bool
    role: str
    """The role a screen reader speaks (`Tab`, `slider`: the node's role description), exact."""
    state: str
    """The state description (`On`, `40 percent`), exact."""
    error: str
    """The error text a field shows, exact."""
    action: str
    """One of the node's accessibility actions beyond its flags (`expand`, a custom action's label)."""
    important: bool
    """Important for accessibility (False: a node screen readers skip)."""
    window: int | str
    """A window by id, type (`application`, `input_method`, `system`), title or package."""
    xpath: str
    """An XPath 1.0 expression over uiautomator dump's XML (`//android.widget.Button[@text='Login']`),
    as Appium Inspector and uiautomator2 write them."""


class DescendantCriteria(_NodeCriteria, total=False):
    """The criteria of a query inside an element (`element.find(...)`): every one but `within`."""

    text: str
    """The exact text (`''` an empty one; never None: leave `text` out for any text)."""


class Criteria(DescendantCriteria, total=False):
    """The criteria of a query on the screen: `screen.find(**criteria)`."""

    within: Anchor | int
    """Descendants of an element (or of the node with that ref)."""


class FieldCriteria(_NodeCriteria, total=False):
    """The criteria naming the field `type_text(text, **criteria)` types into: every one but
    `text`, the text to type (find the field by its text with `screen.find(text=...)`)."""

    within: Anchor | int
