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
 * A child that is gone mid-read means the subtree was torn down (a Compose screen replaced under
 * the read): the reader starts again from the window's root, so it returns the new screen.
 */
public final class TreeReader {
    /** Hard limits against broken trees; the protocol's caps apply when serializing. */
    public static final int HARD_NODE_LIMIT = 50_000;
    public static final int HARD_DEPTH_LIMIT = 1_000;
    static final int MAX_ATTEMPTS = 4;

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
            List<NodeRecord> nodes = readOnce(w, deadline);
            if (nodes != null) return new WindowRead(w.id(), nodes, changed);
            changed = true;
            w = source.window(w.id());
            if (w == null) return null;
        }
        throw new AgentError("busy", "window " + window.id() + " kept changing while it was read", true);
    }

    /** The nodes in pre-order, or null when a subtree was torn down under the read. */
    private List<NodeRecord> readOnce(RawWindow w, Deadline deadline) throws AgentError {
        List<NodeRecord> out = new ArrayList<>();
        PNode root = w.root();
        if (root == null) return out;
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
                PNode c = p.node.child(i);
                if (c == null) return null;
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
        return out;
    }
}
