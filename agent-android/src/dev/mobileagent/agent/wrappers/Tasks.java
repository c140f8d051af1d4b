package dev.mobileagent.agent.wrappers;

import android.graphics.Rect;
import java.lang.reflect.Method;
import java.util.List;

/**
 * The bounds of the focused task, for telling a freeform task's own window from a dialog inside a
 * task (tree/WindowMeta.modal). ActivityTaskManager.getInstance().getTasks(1) (hidden, Android 10+,
 * frameworks/base core/java/android/app/ActivityTaskManager.java) lists the running tasks most recent
 * first, the focused one first; a task's bounds are TaskInfo.configuration.windowConfiguration
 * .getBounds() (hidden fields of android.app.TaskInfo and android.content.res.Configuration, and
 * android.app.WindowConfiguration.getBounds). A caller that may not see other apps' tasks gets
 * only its own, none here. Below Android 10, with an empty list, or where any step is missing, the
 * bounds are unknown (null) and the focused task counts as the whole display (not verified on a
 * device: docs/agent-android.md, "Freeform and desktop windows").
 */
public final class Tasks {
    private Tasks() {}

    /** {left, top, right, bottom} of the most recent (focused) task, or null when unknown. */
    public static int[] focusedBounds() {
        try {
            Class<?> atm = Reflect.type("android.app.ActivityTaskManager");
            Object manager = Reflect.invoke(Reflect.method(atm, "getInstance"), null);
            Method getTasks = Reflect.method(atm, "getTasks", int.class);
            List<?> tasks = (List<?>) Reflect.invoke(getTasks, manager, 1);
            if (tasks == null || tasks.isEmpty()) return null;
            return bounds(tasks.get(0));
        } catch (MissingApi | RuntimeException e) {
            return null;
        }
    }

    /** The task's bounds from its configuration, or null. */
    static int[] bounds(Object taskInfo) throws MissingApi {
        Object configuration = Reflect.field(taskInfo, "configuration");
        if (configuration == null) return null;
        Object windowConfiguration = Reflect.field(configuration, "windowConfiguration");
        if (windowConfiguration == null) return null;
        Method getBounds = Reflect.method(windowConfiguration.getClass(), "getBounds");
        Rect r = (Rect) Reflect.invoke(getBounds, windowConfiguration);
        if (r == null || r.right <= r.left || r.bottom <= r.top) return null;
        return new int[] {r.left, r.top, r.right, r.bottom};
    }
}
