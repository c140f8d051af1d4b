package dev.mobileagent.agent.tree;

import dev.mobileagent.agent.platform.RawWindow;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Window metadata the platform does not state directly: the owning system process and modality.
 *
 * owner: the package of a window that a system process draws (system UI, the permission
 * controller, the system server's own dialogs, the keyboard), null for the app's own windows.
 *
 * modal, from what UiAutomation.getWindows() reports (docs/agent-android.md, "Modal windows"):
 * AccessibilityWindowInfo says nothing of modality, and on Android 13+ a touch-modal activity
 * window (a dialog, a dialog-themed activity such as the permission prompt) takes its whole task
 * as its touch region, so the accessibility window list leaves out every window of the task under
 * it (AccessibilityController's WindowsForAccessibilityObserver) and reports the dialog at its own
 * frame (AccessibilityWindowsPopulator.getTouchableRegionInWindow). So an application window is
 * modal when it has the input focus, floats (it spans neither the display's width nor its height,
 * as a task in split screen or full screen does), and no application window reported under it
 * overlaps it (a non-modal popup leaves the app under it reported). A focused system window that
 * is not one of system UI's (a system server dialog) is modal too.
 */
public final class WindowMeta {
    public static final Set<String> SYSTEM_OWNERS = new HashSet<>(Arrays.asList(
        "android",
        "com.android.systemui",
        "com.android.permissioncontroller",
        "com.google.android.permissioncontroller",
        "com.android.packageinstaller",
        "com.google.android.packageinstaller"));

    private WindowMeta() {}

    public static String owner(RawWindow w, String pkg) {
        if (pkg == null) return null;
        if ("input_method".equals(w.type()) || "system".equals(w.type())) return pkg;
        return SYSTEM_OWNERS.contains(pkg) ? pkg : null;
    }

    /** Modal flags for windows given top-most first, on a display of this size. */
    public static boolean[] modal(List<RawWindow> windows, List<String> packages, int displayWidth, int displayHeight) {
        boolean[] out = new boolean[windows.size()];
        for (int i = 0; i < windows.size(); i++) {
            RawWindow w = windows.get(i);
            if (!w.focused()) continue;
            if ("application".equals(w.type())) {
                out[i] = floats(w.bounds(), displayWidth, displayHeight) && !overlappedBelow(windows, i);
            } else if ("system".equals(w.type())) {
                out[i] = !"com.android.systemui".equals(packages.get(i));
            }
        }
        return out;
    }

    /** Spans neither the display's width nor its height: a dialog, not a task's window. */
    static boolean floats(int[] b, int width, int height) {
        boolean fullWidth = b[0] <= 0 && b[2] >= width;
        boolean fullHeight = b[1] <= 0 && b[3] >= height;
        return !fullWidth && !fullHeight;
    }

    private static boolean overlappedBelow(List<RawWindow> windows, int i) {
        int[] a = windows.get(i).bounds();
        for (int j = i + 1; j < windows.size(); j++) {
            RawWindow below = windows.get(j);
            if (!"application".equals(below.type())) continue;
            int[] b = below.bounds();
            if (a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3]) return true;
        }
        return false;
    }
}
