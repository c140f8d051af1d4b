package dev.mobileagent.agent.android;

import android.os.Bundle;
import android.view.accessibility.AccessibilityNodeInfo;
import dev.mobileagent.agent.platform.NodeAttrs;
import dev.mobileagent.agent.wrappers.NodeIds;
import java.util.List;

/**
 * The accessibility fields of a node (docs/protocol.md, NODE, capability a11y_fields): what a screen
 * reader and Google's Accessibility Test Framework read beyond the tree's own keys. Each getter is
 * behind the API level that brought it (a NoSuchMethodError leaves the default).
 */
final class AccessibilityFields {
    /** The extra View and Compose put the role description in (AccessibilityNodeInfoCompat). */
    static final String ROLE_DESCRIPTION = "AccessibilityNodeInfo.roleDescription";

    private AccessibilityFields() {}

    static void read(AccessibilityNodeInfo n, NodeAttrs a) {
        try {
            Bundle extras = n.getExtras();
            CharSequence role = extras == null ? null : extras.getCharSequence(ROLE_DESCRIPTION);
            a.role = role == null || role.length() == 0 ? null : role.toString();
        } catch (NoSuchMethodError | RuntimeException e) {
            a.role = null; // an extra whose parcel cannot be read
        }
        try {
            a.state = str(n.getStateDescription()); // API 30
        } catch (NoSuchMethodError e) {
            a.state = null;
        }
        a.error = str(n.getError());
        AccessibilityNodeInfo.RangeInfo range = n.getRangeInfo();
        if (range != null) a.range = range(range);
        try {
            a.important = n.isImportantForAccessibility(); // API 24
        } catch (NoSuchMethodError e) {
            a.important = true;
        }
        a.actions.clear();
        List<AccessibilityNodeInfo.AccessibilityAction> actions = n.getActionList();
        if (actions != null) {
            for (AccessibilityNodeInfo.AccessibilityAction action : actions) {
                String name = ActionNames.of(action.getId(), action.getLabel());
                if (name != null) a.actions.add(name);
            }
        }
        a.labeledBy = keyOf(n.getLabeledBy());
        try {
            a.traversalBefore = keyOf(n.getTraversalBefore()); // API 22
            a.traversalAfter = keyOf(n.getTraversalAfter());
        } catch (NoSuchMethodError e) {
            a.traversalBefore = null;
            a.traversalAfter = null;
        }
    }

    private static NodeAttrs.RangeInfo range(AccessibilityNodeInfo.RangeInfo r) {
        NodeAttrs.RangeInfo out = new NodeAttrs.RangeInfo();
        int type = r.getType();
        out.type = type == AccessibilityNodeInfo.RangeInfo.RANGE_TYPE_INT ? "int"
            : type == AccessibilityNodeInfo.RangeInfo.RANGE_TYPE_PERCENT ? "percent" : "float";
        out.min = r.getMin();
        out.max = r.getMax();
        out.current = r.getCurrent();
        return out;
    }

    private static Object keyOf(AccessibilityNodeInfo other) {
        return other == null ? null : NodeIds.key(other);
    }

    private static String str(CharSequence s) {
        return s == null ? null : s.toString();
    }
}
