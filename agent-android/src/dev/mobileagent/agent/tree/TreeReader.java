package dev.mobileagent.agent.tree;

import dev.mobileagent.agent.core.AgentError;
import dev.mobileagent.agent.core.Deadline;
import dev.mobileagent.agent.platform.NodeAttrs;
import dev.mobileagent.agent.platform.PNode;
import dev.mobileagent.agent.platform.RawWindow;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Reads one window's tree iteratively (an explicit stack, never recursion), every node counted.
 *
 * AccessibilityNodeInfo.getChild(i) returns null for a child it could not fetch: a node
 * provider's or a WebView's child that is gone or not exposed, an embedded hierarchy, a binder
 * timeout. The reader asks once more, then leaves the child out and counts it in the window's
 * skipped children, as uiautomator's dumper skips a null child
 * (cmds/uiautomator/library/core-src/com/android/uiautomator/core/AccessibilityNodeInfoDumper.java,
 * dumpNodeRec: "Null child %d/%d"). Only when the parent itself is gone too (refresh() fails) was
 * the subtree torn down under the read (a Compose screen replaced): the reader then starts again
 * from the window's root, so it returns the new screen.
 */
public final class TreeReader {
    /** Hard limits against broken trees; the protocol's caps apply when serializing. */
    public static final int HARD_NODE_LIMIT = 50_000;
    public static final int HARD_DEPTH_LIMIT = 1_000;
    static final int MAX_ATTEMPTS = 4;
    /** getChild calls for one child before it is left out (the first and one retry). */
    static final int CHILD_ATTEMPTS = 2;

    /** Gives the window again (for a fresh root after a tear-down), or null when it is gone. */
    public interface WindowSource {
        RawWindow window(int windowId) throws AgentError;
    }

    private final Caches caches;

    public TreeReader(Caches caches) {
        this.caches = caches;
    }

    private static final class Pending {
        final PNode node;
        final int id;
        final int parent;
        final int depth;

        Pending(PNode node, int id, int parent, int depth) {
            this.node = node;
            this.id = id;
            this.parent = parent;
            this.depth = depth;
        }
    }

    /** Reads the window; null when it went away during the read. */
    public WindowRead read(RawWindow window, WindowSource source, Deadline deadline) throws AgentError {
        boolean changed = false;
        RawWindow w = window;
        for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
            Outcome o = new Outcome();
            List<NodeRecord> nodes = readOnce(w, deadline, o);
            if (nodes != null) return new WindowRead(w.id(), nodes, changed, o.skipped, o.hadRoot);
            changed = true;
            w = source.window(w.id());
            if (w == null) return null;
        }
        throw new AgentError("busy", "window " + window.id() + " kept changing while it was read", true);
    }

    /** What one pass over the tree met besides its nodes. */
    private static final class Outcome {
        int skipped;
        boolean hadRoot;
    }

    /** The nodes in pre-order, or null when a subtree was torn down under the read. */
    private List<NodeRecord> readOnce(RawWindow w, Deadline deadline, Outcome outcome) throws AgentError {
        List<NodeRecord> out = new ArrayList<>();
        PNode root = w.root();
        if (root == null) return out; // a window whose content is not there yet (getRoot() null)
        outcome.hadRoot = true;
        int windowId = w.id();
        Set<Object> seen = new HashSet<>();
        Deque<Pending> stack = new ArrayDeque<>();
        stack.push(new Pending(root, caches.idFor(windowId, root.key()), -1, 0));
        seen.add(root.key());
        while (!stack.isEmpty()) {
            if ((out.size() & 63) == 63 && deadline != null) deadline.check("reading window " + windowId);
            Pending p = stack.pop();
            NodeAttrs attrs = p.node.attrs();
            int n = p.depth >= HARD_DEPTH_LIMIT ? 0 : p.node.childCount();
            List<Pending> kids = new ArrayList<>(n);
            Integer first = null;
            Integer last = null;
            for (int i = 0; i < n && out.size() + stack.size() + kids.size() < HARD_NODE_LIMIT; i++) {
                PNode c = child(p.node, i);
                if (c == null) {
                    if (p.node.liveBounds() == null) return null; // the parent is gone: torn down
                    outcome.skipped++;
                    continue;
                }
                if (!seen.add(c.key())) continue;
                kids.add(new Pending(c, caches.idFor(windowId, c.key()), p.id, p.depth + 1));
                NodeAttrs ca = c.attrs();
                if (ca.itemIndex != null && ca.visible) {
                    first = first == null ? ca.itemIndex : Math.min(first, ca.itemIndex);
                    last = last == null ? ca.itemIndex : Math.max(last, ca.itemIndex);
                }
            }
            if (attrs.scroll != null && attrs.scroll.first == null && first != null) {
                attrs.scroll.first = first;
                attrs.scroll.last = last;
            }
            int[] childIds = new int[kids.size()];
            for (int i = 0; i < childIds.length; i++) childIds[i] = kids.get(i).id;
            out.add(new NodeRecord(p.id, p.parent, p.depth, attrs, childIds, p.node));
            for (int i = kids.size() - 1; i >= 0; i--) stack.push(kids.get(i));
        }
        resolveLinks(out);
        return out;
    }

    /** The ids of the nodes that label a node or come before or after it, among the window's nodes read. */
    static void resolveLinks(List<NodeRecord> nodes) {
        java.util.Map<Object, Integer> ids = null;
        for (NodeRecord r : nodes) {
            NodeAttrs a = r.attrs;
            if (a.labeledBy == null && a.traversalBefore == null && a.traversalAfter == null) continue;
            if (ids == null) {
                ids = new java.util.HashMap<>();
                for (NodeRecord n : nodes) ids.put(n.node.key(), n.id);
            }
            r.labeledBy = idOf(ids, a.labeledBy);
            r.traversalBefore = idOf(ids, a.traversalBefore);
            r.traversalAfter = idOf(ids, a.traversalAfter);
        }
    }

    private static int idOf(java.util.Map<Object, Integer> ids, Object key) {
        Integer id = key == null ? null : ids.get(key);
        return id == null ? -1 : id;
    }

    private static PNode child(PNode parent, int index) {
        for (int attempt = 0; attempt < CHILD_ATTEMPTS; attempt++) {
            PNode c = parent.child(index);
            if (c != null) return c;
        }
        return null;
    }
}
