package dev.mobileagent.agent.tree;

import java.util.List;

/** The nodes of one window in depth-first pre-order, complete (caps apply when serializing). */
public final class WindowRead {
    public final int windowId;
    public final List<NodeRecord> nodes;
    /** The read met a torn-down subtree and read the window again from its root. */
    public final boolean changedUnderRead;

    WindowRead(int windowId, List<NodeRecord> nodes, boolean changedUnderRead) {
        this.windowId = windowId;
        this.nodes = nodes;
        this.changedUnderRead = changedUnderRead;
    }

    /** False when any node is a virtual node of a provider (Compose content sends no change events). */
    public boolean sendsChangeEvents() {
        for (NodeRecord r : nodes) {
            if (r.attrs.fromProvider) return false;
        }
        return true;
    }

    public String packageName() {
        return nodes.isEmpty() ? null : nodes.get(0).attrs.pkg;
    }
}
