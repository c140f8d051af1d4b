package dev.mobileagent.agent.wrappers;

import android.view.accessibility.AccessibilityNodeInfo;
import java.lang.reflect.Method;

/**
 * Whether a node is a virtual node of an AccessibilityNodeProvider (Compose exposes its semantics
 * so): the hidden getSourceNodeId() holds the virtual descendant id in its upper 32 bits, -1 for a
 * real view. Without the method every node counts as a real view.
 */
public final class NodeIds {
    private static final Method SOURCE_NODE_ID = Reflect.optional(AccessibilityNodeInfo.class, "getSourceNodeId");

    private NodeIds() {}

    public static boolean isVirtual(AccessibilityNodeInfo node) {
        if (SOURCE_NODE_ID == null) return false;
        try {
            long id = (Long) SOURCE_NODE_ID.invoke(node);
            return (int) (id >> 32) != -1;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return false;
        }
    }
}
