package dev.mobileagent.agent.core;

import static dev.mobileagent.agent.protocol.Messages.put;

import java.util.ArrayDeque;
import java.util.Iterator;
import org.json.JSONArray;
import org.json.JSONObject;

/**
 * The toasts the agent saw (docs/protocol.md, {@code toasts}): the text of every
 * TYPE_NOTIFICATION_STATE_CHANGED event whose class is a Toast, as UiAutomation delivers it, with the
 * time it was shown, the last {@link #CAPACITY} kept. Ids grow by one per toast for the agent's
 * lifetime, so a host asks for those after the last it saw. Thread-safe.
 *
 * <p>A toast the agent caused is marked {@code by_agent}: ClipboardService's access toast ("Shell
 * pasted from your clipboard", "&lt;app&gt; pasted from your clipboard"). Its
 * showAccessNotificationLocked (services/core/java/com/android/server/clipboard/ClipboardService.java,
 * Android 12 to 16) shows it with Toast.makeText on system_server's own context, so its package is
 * {@code android}, whenever getPrimaryClip is called by a reader that is not the clip's owner and
 * lacks SUPPRESS_CLIPBOARD_ACCESS_NOTIFICATION: the shell's read before a paste or in clipboard_get,
 * and the app's read of the pasted clip. Each such read the agent makes or causes is expected here;
 * the next toast of package {@code android} within {@link #EXPECT_MS} takes one expectation and is
 * the agent's. The text is localized (R.string.pasted_from_clipboard), so it is not matched.
 */
public final class Toasts {
    public static final int CAPACITY = 64;
    /** The package of a toast system_server shows itself (its Context's). */
    public static final String SYSTEM_PACKAGE = "android";
    /**
     * How long after the read its toast may come: NotificationManagerService shows one toast at a
     * time, so it can wait behind another (LONG_DELAY 3.5 s) or two.
     */
    public static final long EXPECT_MS = 10_000;

    private static final class Toast {
        final long id;
        final String text;
        final String packageName;
        final String className;
        final long atMs;
        final boolean byAgent;

        Toast(long id, String text, String packageName, String className, long atMs, boolean byAgent) {
            this.id = id;
            this.text = text;
            this.packageName = packageName;
            this.className = className;
            this.atMs = atMs;
            this.byAgent = byAgent;
        }
    }

    private final ArrayDeque<Toast> kept = new ArrayDeque<>();
    /** Until when each expected system toast may come, oldest first. */
    private final ArrayDeque<Long> expected = new ArrayDeque<>();
    private long lastId;

    /** The agent is about to read the clipboard (or have an app read it) {@code count} times. */
    public synchronized void expectSystemToasts(int count, long nowMs) {
        for (int i = 0; i < count; i++) expected.addLast(nowMs + EXPECT_MS);
    }

    /** A toast shown at {@code atMs} (the agent's clock). */
    public synchronized void add(String text, String packageName, String className, long atMs) {
        kept.addLast(new Toast(++lastId, text, packageName, className, atMs, expectedAt(packageName, atMs)));
        while (kept.size() > CAPACITY) kept.removeFirst();
    }

    private boolean expectedAt(String packageName, long atMs) {
        for (Iterator<Long> it = expected.iterator(); it.hasNext(); ) {
            if (it.next() < atMs) it.remove();
        }
        if (!SYSTEM_PACKAGE.equals(packageName) || expected.isEmpty()) return false;
        expected.removeFirst();
        return true;
    }

    /** The {@code toasts} result: the toasts kept whose id is above {@code after}, oldest first. */
    public synchronized JSONObject since(long after, long nowMs) {
        JSONArray out = new JSONArray();
        for (Toast t : kept) {
            if (t.id <= after) continue;
            JSONObject o = new JSONObject();
            put(o, "id", t.id);
            put(o, "text", t.text);
            put(o, "package", t.packageName);
            put(o, "class", t.className);
            put(o, "age_ms", Math.max(0L, nowMs - t.atMs));
            put(o, "by_agent", t.byAgent);
            out.put(o);
        }
        return put(put(new JSONObject(), "toasts", out), "last", lastId);
    }
}
