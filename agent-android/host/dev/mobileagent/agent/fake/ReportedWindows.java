package dev.mobileagent.agent.fake;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Which windows UiAutomation.getWindows() reports, as Android 13+ computes it: windows go top-most
 * first; a window is reported when it matters to accessibility, and a reported window then takes
 * its touch region from the space left unaccounted, unless it is excluded from that computation.
 * A window matters when it has the focus, or else when it is touchable (or the split-screen
 * divider), not entirely covered by the unaccounted space's complement, and of a reported type. A
 * trusted non-touchable window and an accessibility overlay take no space. A touch-modal window of
 * an activity takes its whole task, so the app window under a dialog is not reported; a freeform
 * task's window takes only its own frame, so the windows of the tasks around it stay reported.
 *
 * AOSP: services/accessibility/java/com/android/server/accessibility/AccessibilityWindowManager.java
 * (DisplayWindowsObserver: the loop over the visible windows, windowMattersToAccessibility,
 * isReportedWindowType, windowMattersToUnaccountedSpaceComputation; before Android 15 the same
 * methods in services/core/java/com/android/server/wm/AccessibilityController.java,
 * WindowsForAccessibilityObserver), AccessibilityWindowsPopulator.java (getTouchableRegionInWindow:
 * the reported region is the touchable region cut to the window's frame, "Some modal windows, like
 * the activity with Theme.dialog, has the full screen as its touchable region"), WindowState.java
 * (updateRegionForModalActivityWindow: a touch-modal activity window's region is its task's).
 */
final class ReportedWindows {
    // WindowManager.LayoutParams types (core/java/android/view/WindowManager.java)
    static final int TYPE_BASE_APPLICATION = 1;
    static final int TYPE_APPLICATION_MEDIA_OVERLAY = 1004;
    static final int TYPE_WALLPAPER = 2013;
    static final int TYPE_SECURE_SYSTEM_OVERLAY = 2015;
    static final int TYPE_DRAG = 2016;
    static final int TYPE_POINTER = 2018;
    static final int TYPE_BOOT_PROGRESS = 2021;
    static final int TYPE_INPUT_CONSUMER = 2022;
    static final int TYPE_NAVIGATION_BAR_PANEL = 2024;
    static final int TYPE_DISPLAY_OVERLAY = 2026;
    static final int TYPE_MAGNIFICATION_OVERLAY = 2027;
    static final int TYPE_PRIVATE_PRESENTATION = 2030;
    static final int TYPE_ACCESSIBILITY_OVERLAY = 2032;
    /** The types isReportedWindowType leaves out. */
    private static final Set<Integer> UNREPORTED_TYPES = new HashSet<>(Arrays.asList(TYPE_WALLPAPER,
        TYPE_BOOT_PROGRESS, TYPE_DISPLAY_OVERLAY, TYPE_DRAG, TYPE_INPUT_CONSUMER, TYPE_POINTER,
        TYPE_MAGNIFICATION_OVERLAY, TYPE_APPLICATION_MEDIA_OVERLAY, TYPE_SECURE_SYSTEM_OVERLAY,
        TYPE_PRIVATE_PRESENTATION));

    private ReportedWindows() {}

    /** The reported windows of {@code windows} (top-most first) on a display of this size. */
    static List<FakeWindow> of(List<FakeWindow> windows, int width, int height) {
        List<int[]> unaccounted = new ArrayList<>();
        unaccounted.add(new int[] {0, 0, width, height});
        List<FakeWindow> out = new ArrayList<>();
        boolean focusedAdded = false;
        for (FakeWindow w : windows) {
            if (matters(w, unaccounted)) {
                out.add(w);
                if (takesSpace(w)) unaccounted = subtract(unaccounted, w.touchRegion(width, height));
                focusedAdded |= w.focused;
            }
            if (unaccounted.isEmpty() && focusedAdded) break;
        }
        return out;
    }

    /** windowMattersToAccessibility. */
    private static boolean matters(FakeWindow w, List<int[]> unaccounted) {
        if (w.focused) return true;
        if (!w.touchable && !isDivider(w)) return false;
        if (!intersects(unaccounted, w.bounds)) return false;
        return !UNREPORTED_TYPES.contains(w.layoutType);
    }

    /** windowMattersToUnaccountedSpaceComputation. */
    private static boolean takesSpace(FakeWindow w) {
        if (!w.touchable && !isDivider(w) && w.trustedOverlay) return false;
        return w.layoutType != TYPE_ACCESSIBILITY_OVERLAY;
    }

    private static boolean isDivider(FakeWindow w) {
        return "split_screen_divider".equals(w.type);
    }

    static boolean intersects(List<int[]> region, int[] r) {
        for (int[] a : region) {
            if (a[0] < r[2] && r[0] < a[2] && a[1] < r[3] && r[1] < a[3]) return true;
        }
        return false;
    }

    /** The region minus a rectangle, as disjoint rectangles. */
    static List<int[]> subtract(List<int[]> region, int[] r) {
        List<int[]> out = new ArrayList<>();
        for (int[] a : region) {
            if (!(a[0] < r[2] && r[0] < a[2] && a[1] < r[3] && r[1] < a[3])) {
                out.add(a);
                continue;
            }
            if (a[1] < r[1]) out.add(new int[] {a[0], a[1], a[2], r[1]});
            if (r[3] < a[3]) out.add(new int[] {a[0], r[3], a[2], a[3]});
            int top = Math.max(a[1], r[1]);
            int bottom = Math.min(a[3], r[3]);
            if (a[0] < r[0]) out.add(new int[] {a[0], top, r[0], bottom});
            if (r[2] < a[2]) out.add(new int[] {r[2], top, a[2], bottom});
        }
        return out;
    }
}
