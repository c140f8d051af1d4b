package dev.mobileagent.agent.core;

import static dev.mobileagent.agent.protocol.Messages.put;

import java.util.ArrayDeque;
import org.json.JSONArray;
import org.json.JSONObject;

/**
 * The toasts the agent saw (docs/protocol.md, {@code toasts}): the text of every
 * TYPE_NOTIFICATION_STATE_CHANGED event whose class is a Toast, as UiAutomation delivers it, with the
 * time it was shown, the last {@link #CAPACITY} kept. Ids grow by one per toast for the agent's
 * lifetime, so a host asks for those after the last it saw. Thread-safe.
 */
public final class Toasts {
    public static final int CAPACITY = 64;

    private static final class Toast {
        final long id;
        final String text;
        final String packageName;
        final String className;
        final long atMs;

        Toast(long id, String text, String packageName, String className, long atMs) {
            this.id = id;
            this.text = text;
            this.packageName = packageName;
            this.className = className;
            this.atMs = atMs;
        }
    }

    private final ArrayDeque<Toast> kept = new ArrayDeque<>();
    private long lastId;

    /** A toast shown at {@code atMs} (the agent's clock). */
    public synchronized void add(String text, String packageName, String className, long atMs) {
        kept.addLast(new Toast(++lastId, text, packageName, className, atMs));
        while (kept.size() > CAPACITY) kept.removeFirst();
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
            out.put(o);
        }
        return put(put(new JSONObject(), "toasts", out), "last", lastId);
    }
}
