"""Change notifications of the UI model, as the accessibility framework would send them.

The model notifies every change, whatever the window's toolkit: the display needs them all to
know when a frame differs. The agent double turns `NodesChanged` into protocol events only for
windows that send change events, and every `WindowsChanged` into `windows_changed`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

KINDS = ("text", "content", "structure", "state", "scroll", "selection")


@dataclass(frozen=True)
class NodesChanged:
    """Nodes of a window changed; no nodes and no kinds is a redraw (an animation frame): the pixels
    changed, the tree did not, and no accessibility event goes out for it."""

    window: int
    nodes: tuple[int, ...]
    kinds: tuple[str, ...]
    sends_change_events: bool


@dataclass(frozen=True)
class WindowsChanged:
    windows: tuple[int, ...]  # the ids now present, top-most first


Change = NodesChanged | WindowsChanged
Listener = Callable[[Change], None]
