package dev.mobileagent.agent.tree;

import static dev.mobileagent.agent.protocol.Messages.put;

import dev.mobileagent.agent.platform.NodeAttrs;
import dev.mobileagent.agent.platform.RawWindow;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.json.JSONArray;
import org.json.JSONObject;

/**
 * Serializes windows to the snapshot's WINDOW and NODE objects (docs/protocol.md §5) under the
 * node cap (across all windows, top-most first) and the depth cap (root depth 0), counting every
 * node whatever the caps kept.
 */
public final class SnapshotWriter {
    private final int maxNodes;
    private final int maxDepth;
    private int remaining;
    private int total;
    private boolean truncated;
    private final JSONArray windows = new JSONArray();

    public SnapshotWriter(int maxNodes, int maxDepth) {
        this.maxNodes = maxNodes;
        this.maxDepth = maxDepth;
        this.remaining = maxNodes;
    }

    public void add(RawWindow w, WindowRead read, boolean modal) {
        List<NodeRecord> nodes = read.nodes;
        String pkg = read.packageName();
        Set<Integer> kept = new HashSet<>();
        for (NodeRecord r : nodes) {
            if (r.depth > maxDepth || remaining <= 0) {
                truncated = true;
                continue;
            }
            kept.add(r.id);
            remaining--;
        }
        total += nodes.size();
        JSONArray out = new JSONArray();
        for (NodeRecord r : nodes) {
            if (kept.contains(r.id)) out.put(node(r, kept));
        }
        JSONObject o = new JSONObject();
        put(o, "id", w.id());
        put(o, "type", w.type());
        put(o, "title", w.title());
        put(o, "package", pkg);
        put(o, "layer", w.layer());
        put(o, "focused", w.focused());
        put(o, "active", w.active());
        put(o, "bounds", bounds(w.bounds()));
        put(o, "sends_change_events", read.sendsChangeEvents());
        put(o, "owner", WindowMeta.owner(w, pkg));
        put(o, "modal", modal);
        put(o, "node_count", nodes.size());
        put(o, "skipped_children", read.skippedChildren);
        put(o, "nodes", out);
        windows.put(o);
    }

    public JSONArray windows() {
        return windows;
    }

    public int nodeCount() {
        return total;
    }

    public boolean truncated() {
        return truncated;
    }

    public int maxNodes() {
        return maxNodes;
    }

    static JSONObject node(NodeRecord r, Set<Integer> kept) {
        NodeAttrs a = r.attrs;
        JSONObject o = new JSONObject();
        put(o, "id", r.id);
        put(o, "parent", r.hasParent() ? Integer.valueOf(r.parent) : null);
        put(o, "depth", r.depth);
        put(o, "class", a.className);
        put(o, "text", a.text);
        put(o, "desc", a.desc);
        put(o, "res", a.res);
        put(o, "hint", a.hint);
        put(o, "package", a.pkg);
        put(o, "bounds", bounds(a.bounds));
        put(o, "clickable", a.clickable);
        put(o, "long_clickable", a.longClickable);
        put(o, "focusable", a.focusable);
        put(o, "focused", a.focused);
        put(o, "editable", a.editable);
        put(o, "checkable", a.checkable);
        put(o, "checked", a.checked);
        put(o, "enabled", a.enabled);
        put(o, "selected", a.selected);
        put(o, "scrollable", a.scrollable);
        put(o, "visible", a.visible);
        put(o, "password", a.password);
        put(o, "scroll", scroll(a.scroll));
        JSONArray children = new JSONArray();
        for (int c : r.children) {
            if (kept.contains(c)) children.put(c);
        }
        put(o, "children", children);
        accessibilityFields(o, r, kept);
        return o;
    }

    /** The NODE's optional accessibility keys, each only where it differs from its default. */
    static void accessibilityFields(JSONObject o, NodeRecord r, Set<Integer> kept) {
        NodeAttrs a = r.attrs;
        if (a.role != null) put(o, "role", a.role);
        if (a.state != null) put(o, "state", a.state);
        if (a.range != null) {
            JSONObject range = new JSONObject();
            put(range, "type", a.range.type);
            put(range, "min", a.range.min);
            put(range, "max", a.range.max);
            put(range, "current", a.range.current);
            put(o, "range", range);
        }
        if (a.error != null) put(o, "error", a.error);
        if (!a.actions.isEmpty()) put(o, "actions", new JSONArray(a.actions));
        if (r.labeledBy >= 0 && kept.contains(r.labeledBy)) put(o, "labeled_by", r.labeledBy);
        if (!a.important) put(o, "important", false);
        if (r.traversalBefore >= 0 && kept.contains(r.traversalBefore)) put(o, "traversal_before", r.traversalBefore);
        if (r.traversalAfter >= 0 && kept.contains(r.traversalAfter)) put(o, "traversal_after", r.traversalAfter);
    }

    static Object scroll(NodeAttrs.ScrollInfo s) {
        if (s == null) return null;
        JSONObject o = new JSONObject();
        put(o, "horizontal", s.horizontal);
        put(o, "vertical", s.vertical);
        put(o, "can_back", s.canBack);
        put(o, "can_forward", s.canForward);
        put(o, "items", s.items);
        put(o, "first", s.first);
        put(o, "last", s.last);
        return o;
    }

    public static JSONArray bounds(int[] b) {
        JSONArray a = new JSONArray();
        for (int v : b) a.put(v);
        return a;
    }
}
