package dev.mobileagent.agent.wrappers;

import android.graphics.Rect;
import java.lang.reflect.Method;
import java.util.List;

/**
 * The bounds of the focused task, for telling a freeform task's own window from a dialog inside a
 * task (tree/WindowMeta.modal). ActivityTaskManager.getInstance() (hidden; the class is Android 10+,
 * its getInstance() Android 12 / API 31+, frameworks/base core/java/android/app/ActivityTaskManager.java)
 * .getTasks(MAX_TASKS) lists the running tasks most recent first across every display; the first
 * whose TaskInfo.displayId (a field, Android 10+) is 0, the default display, is the focused
 * task there (a task on a secondary or cover display is not the one the agent reads); a task's bounds are TaskInfo.configuration.windowConfiguration
 * .getBounds() (hidden fields of android.app.TaskInfo and android.content.res.Configuration, and
 * android.app.WindowConfiguration.getBounds). A caller that may not see other apps' tasks gets
 * only its own, none here. Below Android 12, with an empty list, or where any step is missing, the
 * bounds are unknown (null) and the focused task counts as the whole display (not verified on a
 * device: docs/agent-android.md, "Freeform and desktop windows").
 */
public final class Tasks {
    private Tasks() {}

    /** How many recent tasks are looked through for display 0's. */
    static final int MAX_TASKS = 8;

    /** {left, top, right, bottom} of the most recent (focused) task on display 0, or null when unknown. */
    public static int[] focusedBounds() {
        try {
            Class<?> atm = Reflect.type("android.app.ActivityTaskManager");
            Object manager = Reflect.invoke(Reflect.method(atm, "getInstance"), null);
            Method getTasks = Reflect.method(atm, "getTasks", int.class);
            List<?> tasks = (List<?>) Reflect.invoke(getTasks, manager, MAX_TASKS);
            Object task = firstOnDefaultDisplay(tasks);
            return task == null ? null : bounds(task);
        } catch (MissingApi | RuntimeException e) {
            return null;
        }
    }

    /** The first task whose displayId is 0, or null (none, or a TaskInfo without the field). */
    static Object firstOnDefaultDisplay(List<?> tasks) throws MissingApi {
        if (tasks == null) return null;
        for (Object t : tasks) {
            Object display = Reflect.field(t, "displayId");
            if (display instanceof Integer && (Integer) display == 0) return t;
        }
        return null;
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
