"""Which windows the accessibility framework reports (`UiAutomation.getWindows()`), as Android
13+ computes them from the windows' touch regions.

Windows go top-most first. A window is reported unless the space the windows above it left
unaccounted misses it entirely (the focused window is always reported), and each reported window
then takes its touch region out of the unaccounted space. A touch-modal window of an activity (a
dialog, a dialog-themed activity such as the permission prompt) has its whole task as its touch
region, so the app window under it is not reported at all; the dialog itself is reported at its
own frame.

AOSP: services/core/java/com/android/server/wm/AccessibilityController.java
(WindowsForAccessibilityObserver: the loop over the visible windows, `windowMattersToAccessibility`,
`updateUnaccountedSpace`); AccessibilityWindowsPopulator.java (`getTouchableRegionInWindow`: "Some
modal windows, like the activity with Theme.dialog, has the full screen as its touchable region,
but its window frame is smaller"); WindowState.java (`updateRegionForModalActivityWindow`: a modal
activity window's touch region is its task's). The Java fake platform follows the same rule
(agent-android/host/.../fake/ReportedWindows.java).
"""

from __future__ import annotations

from collections.abc import Sequence

from pytest_mobile_agent.virtual.ui.node import Bounds, Window

Region = list[Bounds]


def reported(windows: Sequence[Window], display: Bounds) -> list[Window]:
    """The windows `getWindows()` reports, top-most first, of `windows` (top-most first)."""
    unaccounted: Region = [display]
    out: list[Window] = []
    focused_added = False
    for window in windows:
        if window.focused or intersects(unaccounted, window.bounds):
            out.append(window)
            unaccounted = subtract(unaccounted, touch_region(window, display))
            focused_added |= window.focused
        if not unaccounted and focused_added:
            break
    return out


def touch_region(window: Window, display: Bounds) -> Bounds:
    """Where the window takes touches: a touch-modal window its task (a fullscreen task: the
    display), any other its frame."""
    return display if window.modal else window.bounds


def intersects(region: Region, rect: Bounds) -> bool:
    return any(_overlap(a, rect) for a in region)


def subtract(region: Region, rect: Bounds) -> Region:
    """The region minus a rectangle, as disjoint rectangles."""
    out: Region = []
    for a in region:
        if not _overlap(a, rect):
            out.append(a)
            continue
        left, top, right, bottom = a
        if top < rect[1]:
            out.append((left, top, right, rect[1]))
        if rect[3] < bottom:
            out.append((left, rect[3], right, bottom))
        band_top, band_bottom = max(top, rect[1]), min(bottom, rect[3])
        if left < rect[0]:
            out.append((left, band_top, rect[0], band_bottom))
        if rect[2] < right:
            out.append((rect[2], band_top, right, band_bottom))
    return out


def _overlap(a: Bounds, b: Bounds) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]
