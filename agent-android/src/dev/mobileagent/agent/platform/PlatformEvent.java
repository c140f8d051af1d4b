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

    public final int kind;
    public final int windowId;
    /** The keys of the changed nodes (PNode.key()), possibly empty. */
    public final List<Object> nodeKeys;
    /** Among text, content, structure, state, scroll, selection. */
    public final Set<String> kinds;

    public PlatformEvent(int kind, int windowId, List<Object> nodeKeys, Set<String> kinds) {
        this.kind = kind;
        this.windowId = windowId;
        this.nodeKeys = nodeKeys == null ? Collections.<Object>emptyList() : nodeKeys;
        this.kinds = kinds == null ? Collections.<String>emptySet() : kinds;
    }
}
