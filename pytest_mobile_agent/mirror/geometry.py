"""Rectangles on the screen: clipping, and whether a node's bounds reach into its window on the
display (mirror/visibility.py says what a person sees of a node; the replica corrects the agent's
`visible` with `on_screen`'s test)."""

from __future__ import annotations

from pytest_mobile_agent.session.backends import Bounds, Display, Window


def clip(a: Bounds, b: Bounds) -> Bounds | None:
    """The intersection of two rectangles, None when it has no area."""
    left, top, right, bottom = max(a[0], b[0]), max(a[1], b[1]), min(a[2], b[2]), min(a[3], b[3])
    return (left, top, right, bottom) if left < right and top < bottom else None


def has_area(bounds: Bounds) -> bool:
    return bounds[2] > bounds[0] and bounds[3] > bounds[1]


def display_bounds(display: Display) -> Bounds | None:
    """The display's rectangle, None when the agent did not say its size."""
    bounds = (0, 0, display.width, display.height)
    return bounds if has_area(bounds) else None


def screen_region(window: Window, display: Display) -> Bounds | None:
    """Where a window's nodes can be seen: its bounds on the display (either alone when the agent
    left the other unsaid), None when nothing bounds it."""
    region = display_bounds(display)
    if has_area(window.bounds):
        region = window.bounds if region is None else clip(region, window.bounds)
    return region


def on_screen(bounds: Bounds, region: Bounds) -> bool:
    """Whether a node's bounds reach into the region at all (the replica's test, written inline there)."""
    left, top, right, bottom = bounds
    return right > region[0] and left < region[2] and bottom > region[1] and top < region[3]


def largest_rest(part: Bounds, cover: Bounds) -> Bounds | None:
    """The largest of the strips of `part` that `cover` leaves (above, below, left, right of it)."""
    left, top, right, bottom = part
    strips = [
        (left, top, right, min(bottom, cover[1])),
        (left, max(top, cover[3]), right, bottom),
        (left, top, min(right, cover[0]), bottom),
        (max(left, cover[2]), top, right, bottom),
    ]
    kept = [s for s in strips if has_area(s)]
    return max(kept, key=lambda s: (s[2] - s[0]) * (s[3] - s[1])) if kept else None


def bounds_text(bounds: Bounds) -> str:
    left, top, right, bottom = bounds
    return f"[{left},{top}][{right},{bottom}]"
