package dev.mobileagent.agent.fake;

import java.util.ArrayList;
import java.util.List;

/**
 * Which windows UiAutomation.getWindows() reports, as Android 13+ computes it: windows go top-most
 * first; a window is reported unless the space left unaccounted by the windows above it misses it
 * entirely (a focused window is always reported), and each reported window then takes its touch
 * region from the unaccounted space. A touch-modal window of an activity takes its whole task (the
 * display, for a fullscreen task), so the app window under a dialog is not reported.
 *
 * AOSP: services/core/java/com/android/server/wm/AccessibilityController.java
 * (WindowsForAccessibilityObserver: the loop over visibleWindows, windowMattersToAccessibility,
 * updateUnaccountedSpace), AccessibilityWindowsPopulator.java (getTouchableRegionInWindow: the
 * reported region is the touchable region cut to the window's frame, "Some modal windows, like the
 * activity with Theme.dialog, has the full screen as its touchable region"), WindowState.java
 * (updateRegionForModalActivityWindow: a touch-modal activity window's region is its task's).
 */
final class ReportedWindows {
    private ReportedWindows() {}

    /** The reported windows of {@code windows} (top-most first) on a display of this size. */
    static List<FakeWindow> of(List<FakeWindow> windows, int width, int height) {
        List<int[]> unaccounted = new ArrayList<>();
        unaccounted.add(new int[] {0, 0, width, height});
        List<FakeWindow> out = new ArrayList<>();
        boolean focusedAdded = false;
        for (FakeWindow w : windows) {
            if (w.focused || intersects(unaccounted, w.bounds)) {
                out.add(w);
                unaccounted = subtract(unaccounted, w.touchRegion(width, height));
                focusedAdded |= w.focused;
            }
            if (unaccounted.isEmpty() && focusedAdded) break;
        }
        return out;
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
