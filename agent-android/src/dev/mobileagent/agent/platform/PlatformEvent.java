package dev.mobileagent.agent.platform;

import java.util.Collections;
import java.util.List;
import java.util.Set;

/** An accessibility event reduced to what the agent acts on. */
public final class PlatformEvent {
    /** The set of windows changed (TYPE_WINDOWS_CHANGED). */
    public static final int WINDOWS = 1;
    /** Nodes of one window changed. */
    public static final int CONTENT = 2;
    /** Anything else: counts as activity for the idle wait only. */
    public static final int OTHER = 3;
    /** A toast was shown (TYPE_NOTIFICATION_STATE_CHANGED of a Toast class): {@link #text} and its time. */
    public static final int TOAST = 4;

    public final int kind;
    public final int windowId;
    /** The keys of the changed nodes (PNode.key()), possibly empty. */
    public final List<Object> nodeKeys;
    /** Among text, content, structure, state, scroll, selection. */
    public final Set<String> kinds;
    /** For a toast: its text, the app's package (null when the event names none), its class. */
    public final String text;
    public final String packageName;
    public final String className;
    /** For a toast: when it was shown, on the agent's clock. */
    public final long atMs;

    public PlatformEvent(int kind, int windowId, List<Object> nodeKeys, Set<String> kinds) {
        this(kind, windowId, nodeKeys, kinds, null, null, null, 0L);
    }

    private PlatformEvent(int kind, int windowId, List<Object> nodeKeys, Set<String> kinds, String text,
                          String packageName, String className, long atMs) {
        this.kind = kind;
        this.windowId = windowId;
        this.nodeKeys = nodeKeys == null ? Collections.<Object>emptyList() : nodeKeys;
        this.kinds = kinds == null ? Collections.<String>emptySet() : kinds;
        this.text = text;
        this.packageName = packageName;
        this.className = className;
        this.atMs = atMs;
    }

    /** A toast shown at {@code atMs} on the agent's clock. */
    public static PlatformEvent toast(String text, String packageName, String className, long atMs) {
        return new PlatformEvent(TOAST, -1, null, null, text, packageName, className, atMs);
    }
}
