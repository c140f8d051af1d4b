"""What every rule reads: the audited nodes, their tree, the display and the screenshot.

Built once per audit from a replica `View`, so a rule asks for a node's parent or children by ref
in a dict instead of walking the window again (the 573 nodes of the Big tab are audited in a few
milliseconds).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

from pytest_mobile_agent.mirror.a11y.contrast import Swatch, SwatchCache
from pytest_mobile_agent.mirror.replica import Entry, View
from pytest_mobile_agent.session.backends import Node


@dataclass
class AuditContext:
    """The audited entries (`subjects`: visible nodes within the scope) and the whole view's tree."""

    view: View
    subjects: list[Entry]
    pixels: np.ndarray | None
    """The screen, upright, at the display's size (height x width x 3 bytes); None: the contrast
    rules do not run."""
    swatches: SwatchCache = field(default_factory=SwatchCache)
    children: dict[int, list[Entry]] = field(default_factory=dict)
    by_id: dict[tuple[int, int], Entry] = field(default_factory=dict)
    """(window id, the agent's node id) -> entry: what `labeled_by` names."""
    spoken: dict[int, str] = field(default_factory=dict)
    """ref -> its speakable text, once worked out (two rules ask)."""
    focused: dict[int, bool] = field(default_factory=dict)
    """ref -> whether a screen reader stops on it, once worked out."""
    known: frozenset[tuple[str, int]] | set[tuple[str, int]] = frozenset()
    """(rule, ref) of findings already reported: the rules skip them (the per-step audit reports only
    new findings, and on a screen of 500 small cells it would build 500 again at every step)."""
    measured: dict[int, Swatch | None] = field(default_factory=dict)
    """ref -> its crop's swatch in this audit (None: not measurable)."""
    memo: dict[tuple[str, int, bool, bool], object] = field(default_factory=dict)
    """What the rules work out once per parent (siblings share it: 500 cells, 50 rows)."""

    @classmethod
    def of(cls, view: View, scope: Iterable[Entry], pixels: np.ndarray | None,
           swatches: SwatchCache | None = None,
           known: frozenset[tuple[str, int]] | set[tuple[str, int]] = frozenset()) -> AuditContext:
        context = cls(view, [e for e in scope if e.node.visible], pixels, swatches or SwatchCache(), known=known)
        for entry in view.entries:
            context.by_id[(entry.window.id, entry.node.id)] = entry
            if entry.parent is not None:
                context.children.setdefault(entry.parent, []).append(entry)
        return context

    @property
    def scale(self) -> float:
        """Physical pixels per dp (density / 160)."""
        return self.view.snapshot.scale or self.view.snapshot.display.density / 160 or 1.0

    @property
    def display_size(self) -> tuple[int, int]:
        display = self.view.snapshot.display
        return display.width, display.height

    def kids(self, entry: Entry) -> list[Entry]:
        return self.children.get(entry.ref, [])

    def parent(self, entry: Entry) -> Entry | None:
        return self.view.by_ref.get(entry.parent) if entry.parent is not None else None

    def label_of(self, entry: Entry) -> Entry | None:
        """The node that labels `entry` (its `labeled_by`), when it is in the view."""
        labeled_by = entry.node.labeled_by
        return None if labeled_by is None else self.by_id.get((entry.window.id, labeled_by))

    def dp(self, pixels: int) -> int:
        """A length in dp, rounded as ATF rounds (Math.round(pixels / density))."""
        return int(pixels / self.scale + 0.5)


def acts(node: Node) -> bool:
    """Focusable or clickable for accessibility (ATF's isFocusableOrClickableForAccessibility)."""
    return node.clickable or node.long_clickable or node.focusable
