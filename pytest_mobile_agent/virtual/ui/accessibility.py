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

Which windows matter, and which take space, as AccessibilityWindowManager has it on Android 15+
(services/accessibility/java/com/android/server/accessibility/AccessibilityWindowManager.java,
DisplayWindowsObserver: `windowMattersToAccessibility`, `isReportedWindowType`,
`windowMattersToUnaccountedSpaceComputation`; before Android 15 the same methods in
AccessibilityController.java): the focused window always matters; any other only when it is
touchable (FLAG_NOT_TOUCHABLE unset) or the split-screen divider, meets the unaccounted space and
is of a reported type (not the wallpaper, a drag, the pointer, ...: window_types.py). A trusted
overlay that takes no touches and an accessibility overlay take no space from the windows below.
A freeform task's window takes only its frame, a dialog in a freeform task only that task.
"""

from __future__ import annotations

from collections.abc import Sequence

from pytest_mobile_agent.virtual.ui.node import Bounds, Window
from pytest_mobile_agent.virtual.ui.window_types import TYPE_ACCESSIBILITY_OVERLAY, UNREPORTED_TYPES

Region = list[Bounds]


def reported(windows: Sequence[Window], display: Bounds) -> list[Window]:
    """The windows `getWindows()` reports, top-most first, of `windows` (top-most first)."""
    unaccounted: Region = [display]
    out: list[Window] = []
    focused_added = False
    for window in windows:
        if matters(window, unaccounted):
            out.append(window)
            if takes_space(window):
                unaccounted = subtract(unaccounted, window.touch_region(display))
            focused_added |= window.focused
        if not unaccounted and focused_added:
            break
    return out


def matters(window: Window, unaccounted: Region) -> bool:
    """windowMattersToAccessibility."""
    if window.focused:
        return True
    if not window.touchable and not _divider(window):
        return False
    return intersects(unaccounted, window.bounds) and window.layout_type not in UNREPORTED_TYPES


def takes_space(window: Window) -> bool:
    """windowMattersToUnaccountedSpaceComputation."""
    if not window.touchable and not _divider(window) and window.trusted_overlay:
        return False
    return window.layout_type != TYPE_ACCESSIBILITY_OVERLAY


def _divider(window: Window) -> bool:
    return window.type == "split_screen_divider"


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
