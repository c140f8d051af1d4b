package dev.mobileagent.agent.wrappers;

import android.view.accessibility.AccessibilityNodeInfo;
import android.view.accessibility.AccessibilityRecord;
import java.lang.reflect.Method;

/**
 * A node's identity without a call into the app. The hidden getSourceNodeId() of
 * AccessibilityNodeInfo and of AccessibilityRecord (an event) is the same long: the view's
 * accessibility id in the lower 32 bits, a provider's virtual descendant id in the upper 32 bits,
 * -1 there for a real view (AccessibilityNodeInfo.makeNodeId). With the window id it is what
 * AccessibilityNodeInfo.equals compares, so a node read from the tree and the source an event names
 * have equal keys, and the event's source need not be fetched (AccessibilityRecord.getSource is a
 * synchronous call into the app through AccessibilityInteractionClient). Both methods are there from
 * Android 4.1 (API 16), which gave the source id its virtual-descendant half for
 * AccessibilityNodeProvider, so on every release the agent runs on (API 24+; @UnsupportedAppUsage); a
 * vendor without them gets the fallback: a node is its own key and an event names no node.
 */
public final class NodeIds {
    private static final Method NODE_SOURCE_ID = Reflect.optional(AccessibilityNodeInfo.class, "getSourceNodeId");
    private static final Method RECORD_SOURCE_ID = Reflect.optional(AccessibilityRecord.class, "getSourceNodeId");

    private NodeIds() {}

    public static boolean isVirtual(AccessibilityNodeInfo node) {
        Long id = id(NODE_SOURCE_ID, node);
        return id != null && (int) (id >> 32) != -1;
    }

    /** The node's key: its window and source node id, or the node itself without the hidden method. */
    public static Object key(AccessibilityNodeInfo node) {
        Long id = id(NODE_SOURCE_ID, node);
        return id == null ? node : new Key(node.getWindowId(), id);
    }

    /** The key of the node an event names, from the event alone; null when it cannot be read. */
    public static Key sourceKey(AccessibilityRecord event, int windowId) {
        Long id = id(RECORD_SOURCE_ID, event);
        return id == null ? null : new Key(windowId, id);
    }

    private static Long id(Method getter, Object target) {
        if (getter == null) return null;
        try {
            return (Long) getter.invoke(target);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    /** A window id and a source node id, equal for the same node however it was obtained. */
    public static final class Key {
        final int windowId;
        final long nodeId;

        public Key(int windowId, long nodeId) {
            this.windowId = windowId;
            this.nodeId = nodeId;
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof Key)) return false;
            Key k = (Key) o;
            return k.windowId == windowId && k.nodeId == nodeId;
        }

        @Override
        public int hashCode() {
            return 31 * windowId + (int) (nodeId ^ (nodeId >>> 32));
        }

        @Override
        public String toString() {
            return "node " + nodeId + " of window " + windowId;
        }
    }
}
