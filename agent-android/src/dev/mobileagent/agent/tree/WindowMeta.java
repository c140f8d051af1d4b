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
 * modal when it has the input focus, floats within its task (it spans neither the task's width nor
 * its height: a task's own window fills its task, in full screen, split screen and as a freeform
 * window alike), and no application window of its task is reported under it overlapping it (a
 * non-modal popup leaves the task's window under it reported; another task's window, which a
 * freeform dialog's region does not cover, says nothing). The task's bounds come from the platform
 * (Platform.focusedTaskBounds); unknown, the task is taken to be the display, and every application
 * window under the focused one to be its task's. A focused system window that is not one of system
 * UI's (a system server dialog) is modal too.
 */
public final class WindowMeta {
    public static final Set<String> SYSTEM_OWNERS = new HashSet<>(Arrays.asList(
        "android",
        "com.android.systemui",
        "com.android.permissioncontroller",
        "com.google.android.permissioncontroller",
        "com.android.packageinstaller",
        "com.google.android.packageinstaller"));

    /** The bounds of the focused window's task, asked for only when a focused application window floats. */
    public interface TaskBounds {
        /** {left, top, right, bottom}, or null when the platform cannot tell. */
        int[] ofFocusedTask();
    }

    private WindowMeta() {}

    public static String owner(RawWindow w, String pkg) {
        if (pkg == null) return null;
        if ("input_method".equals(w.type()) || "system".equals(w.type())) return pkg;
        return SYSTEM_OWNERS.contains(pkg) ? pkg : null;
    }

    /** Modal flags for windows given top-most first, on a display of this size. */
    public static boolean[] modal(List<RawWindow> windows, List<String> packages, int displayWidth, int displayHeight,
            TaskBounds tasks) {
        boolean[] out = new boolean[windows.size()];
        int[] display = {0, 0, displayWidth, displayHeight};
        for (int i = 0; i < windows.size(); i++) {
            RawWindow w = windows.get(i);
            if (!w.focused()) continue;
            if ("application".equals(w.type())) {
                out[i] = floats(w.bounds(), display) && modalInTask(windows, i, taskOrDisplay(tasks, display));
            } else if ("system".equals(w.type())) {
                out[i] = !"com.android.systemui".equals(packages.get(i));
            }
        }
        return out;
    }

    private static int[] taskOrDisplay(TaskBounds tasks, int[] display) {
        int[] task = tasks == null ? null : tasks.ofFocusedTask();
        return task == null ? display : task;
    }

    private static boolean modalInTask(List<RawWindow> windows, int i, int[] task) {
        return floats(windows.get(i).bounds(), task) && !taskWindowBelow(windows, i, task);
    }

    /** Spans neither the width nor the height of {@code area}: a dialog, not its task's own window. */
    static boolean floats(int[] b, int[] area) {
        boolean fullWidth = b[0] <= area[0] && b[2] >= area[2];
        boolean fullHeight = b[1] <= area[1] && b[3] >= area[3];
        return !fullWidth && !fullHeight;
    }

    /** An application window of the task (within its bounds) reported under window i, overlapping it. */
    private static boolean taskWindowBelow(List<RawWindow> windows, int i, int[] task) {
        int[] a = windows.get(i).bounds();
        for (int j = i + 1; j < windows.size(); j++) {
            RawWindow below = windows.get(j);
            if (!"application".equals(below.type())) continue;
            int[] b = below.bounds();
            if (within(b, task) && a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3]) return true;
        }
        return false;
    }

    private static boolean within(int[] b, int[] area) {
        return b[0] >= area[0] && b[1] >= area[1] && b[2] <= area[2] && b[3] <= area[3];
    }
}
