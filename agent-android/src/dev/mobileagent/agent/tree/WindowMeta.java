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
 * modal: an application window above another application window (an app's dialog, a permission
 * prompt: an activity or dialog over the app takes the input), or a focused system window that is
 * not one of system UI's bars (a system server dialog).
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

    /** Modal flags for windows given top-most first. */
    public static boolean[] modal(List<RawWindow> windows, List<String> packages) {
        boolean[] out = new boolean[windows.size()];
        for (int i = 0; i < windows.size(); i++) {
            RawWindow w = windows.get(i);
            if ("application".equals(w.type())) {
                for (int j = i + 1; j < windows.size(); j++) {
                    if ("application".equals(windows.get(j).type())) {
                        out[i] = true;
                        break;
                    }
                }
            } else if ("system".equals(w.type()) && w.focused()) {
                out[i] = !"com.android.systemui".equals(packages.get(i));
            }
        }
        return out;
    }
}
