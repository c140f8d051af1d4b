package dev.mobileagent.agent.tree;

import java.util.List;

/** The nodes of one window in depth-first pre-order, complete (caps apply when serializing). */
public final class WindowRead {
    public final int windowId;
    public final List<NodeRecord> nodes;
    /** The read met a torn-down subtree and read the window again from its root. */
    public final boolean changedUnderRead;
    /** Children the platform did not give (getChild null twice) and the read left out. */
    public final int skippedChildren;
    /** False when the window had no root yet: nothing was read, and nothing is known of its toolkit. */
    public final boolean hadRoot;

    WindowRead(int windowId, List<NodeRecord> nodes, boolean changedUnderRead, int skippedChildren, boolean hadRoot) {
        this.windowId = windowId;
        this.nodes = nodes;
        this.changedUnderRead = changedUnderRead;
        this.skippedChildren = skippedChildren;
        this.hadRoot = hadRoot;
    }

    /** Whether the read may serve later snapshots: a whole tree, read from a root. */
    public boolean cacheable() {
        return hadRoot && skippedChildren == 0;
    }

    /**
     * False when any node is a virtual node of a provider (Compose content sends no change events),
     * and for a window without its root yet, whose toolkit is unknown: the host then reads it again
     * after any input rather than waiting for an event it may never get.
     */
    public boolean sendsChangeEvents() {
        if (!hadRoot) return false;
        for (NodeRecord r : nodes) {
            if (r.attrs.fromProvider) return false;
        }
        return true;
    }

    public String packageName() {
        return nodes.isEmpty() ? null : nodes.get(0).attrs.pkg;
    }
}
