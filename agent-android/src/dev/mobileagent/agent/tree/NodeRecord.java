package dev.mobileagent.agent.tree;

import dev.mobileagent.agent.platform.NodeAttrs;
import dev.mobileagent.agent.platform.PNode;

/** One node of a window's tree as read: its snapshot id, place in the tree and attributes. */
public final class NodeRecord {
    public final int id;
    public final int parent;
    public final int depth;
    public final NodeAttrs attrs;
    public final int[] children;
    public final PNode node;
    /** The snapshot ids of the nodes attrs.labeledBy, traversalBefore and traversalAfter name (-1: none read). */
    int labeledBy = -1;
    int traversalBefore = -1;
    int traversalAfter = -1;

    NodeRecord(int id, int parent, int depth, NodeAttrs attrs, int[] children, PNode node) {
        this.id = id;
        this.parent = parent;
        this.depth = depth;
        this.attrs = attrs;
        this.children = children;
        this.node = node;
    }

    public boolean hasParent() {
        return parent >= 0;
    }
}
