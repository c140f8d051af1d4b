"""The WindowManager.LayoutParams window types that decide whether the accessibility framework
reports a window (frameworks/base, core/java/android/view/WindowManager.java; the list is
AccessibilityWindowManager.isReportedWindowType's, services/accessibility/java/com/android/server/
accessibility/AccessibilityWindowManager.java). The Java fake platform uses the same values
(agent-android/host/.../fake/ReportedWindows.java)."""

from __future__ import annotations

TYPE_BASE_APPLICATION = 1
TYPE_APPLICATION_MEDIA_OVERLAY = 1004
TYPE_WALLPAPER = 2013
TYPE_SECURE_SYSTEM_OVERLAY = 2015
TYPE_DRAG = 2016
TYPE_POINTER = 2018
TYPE_BOOT_PROGRESS = 2021
TYPE_INPUT_CONSUMER = 2022
TYPE_NAVIGATION_BAR_PANEL = 2024
TYPE_DISPLAY_OVERLAY = 2026
TYPE_MAGNIFICATION_OVERLAY = 2027
TYPE_PRIVATE_PRESENTATION = 2030
TYPE_ACCESSIBILITY_OVERLAY = 2032

#: the types isReportedWindowType leaves out of the accessibility window list
UNREPORTED_TYPES = frozenset({
    TYPE_WALLPAPER, TYPE_BOOT_PROGRESS, TYPE_DISPLAY_OVERLAY, TYPE_DRAG, TYPE_INPUT_CONSUMER, TYPE_POINTER,
    TYPE_MAGNIFICATION_OVERLAY, TYPE_APPLICATION_MEDIA_OVERLAY, TYPE_SECURE_SYSTEM_OVERLAY,
    TYPE_PRIVATE_PRESENTATION,
})
