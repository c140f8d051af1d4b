package dev.mobileagent.agent.android;

import android.graphics.Rect;
import android.os.Build;
import android.os.Bundle;
import android.view.accessibility.AccessibilityNodeInfo;
import dev.mobileagent.agent.platform.NodeAttrs;
import dev.mobileagent.agent.platform.PNode;
import dev.mobileagent.agent.wrappers.NodeIds;
import java.util.List;

/**
 * An AccessibilityNodeInfo. Its key is its window and source node id (wrappers/NodeIds), what
 * AccessibilityNodeInfo.equals compares: the same node read twice, and the source an event names,
 * have equal keys.
 */
final class AndroidNode implements PNode {
    private final AccessibilityNodeInfo info;
    private final NodeAttrs attrs;

    AndroidNode(AccessibilityNodeInfo info) {
        this.info = info;
        this.attrs = read(info);
    }

    static NodeAttrs read(AccessibilityNodeInfo n) {
        NodeAttrs a = new NodeAttrs();
        a.className = str(n.getClassName());
        a.text = str(n.getText());
        a.desc = str(n.getContentDescription());
        a.res = n.getViewIdResourceName();
        a.hint = hint(n);
        a.pkg = str(n.getPackageName());
        Rect r = new Rect();
        n.getBoundsInScreen(r);
        a.bounds = new int[] {r.left, r.top, r.right, r.bottom};
        a.clickable = n.isClickable();
        a.longClickable = n.isLongClickable();
        a.focusable = n.isFocusable();
        a.focused = n.isFocused();
        a.editable = n.isEditable();
        a.checkable = n.isCheckable();
        a.checked = n.isChecked();
        a.enabled = n.isEnabled();
        a.selected = n.isSelected();
        a.scrollable = n.isScrollable();
        a.visible = n.isVisibleToUser();
        a.password = n.isPassword();
        a.fromProvider = NodeIds.isVirtual(n);
        if (a.scrollable) a.scroll = scroll(n);
        AccessibilityNodeInfo.CollectionItemInfo item = n.getCollectionItemInfo();
        if (item != null) a.itemIndex = Math.max(item.getRowIndex(), item.getColumnIndex());
        AccessibilityFields.read(n, a);
        return a;
    }

    private static String hint(AccessibilityNodeInfo n) {
        try {
            return str(n.getHintText()); // API 26
        } catch (NoSuchMethodError e) {
            return null;
        }
    }

    private static NodeAttrs.ScrollInfo scroll(AccessibilityNodeInfo n) {
        NodeAttrs.ScrollInfo s = new NodeAttrs.ScrollInfo();
        AccessibilityNodeInfo.CollectionInfo c = n.getCollectionInfo();
        if (c != null) {
            s.horizontal = c.getColumnCount() > 1 && c.getRowCount() <= 1;
            s.vertical = !s.horizontal;
            int items = s.horizontal ? c.getColumnCount() : c.getRowCount();
            s.items = items >= 0 ? Integer.valueOf(items) : null;
        }
        List<AccessibilityNodeInfo.AccessibilityAction> actions = n.getActionList();
        if (actions != null) {
            for (AccessibilityNodeInfo.AccessibilityAction action : actions) {
                if (action.getId() == AccessibilityNodeInfo.ACTION_SCROLL_BACKWARD) s.canBack = true;
                if (action.getId() == AccessibilityNodeInfo.ACTION_SCROLL_FORWARD) s.canForward = true;
            }
        }
        return s;
    }

    private static String str(CharSequence s) {
        return s == null ? null : s.toString();
    }

    @Override
    public Object key() {
        return NodeIds.key(info);
    }

    @Override
    public NodeAttrs attrs() {
        return attrs;
    }

    @Override
    public int childCount() {
        return info.getChildCount();
    }

    @Override
    public PNode child(int index) {
        AccessibilityNodeInfo c = info.getChild(index);
        return c == null ? null : new AndroidNode(c);
    }

    @Override
    public int[] liveBounds() {
        if (!info.refresh()) return null;
        Rect r = new Rect();
        info.getBoundsInScreen(r);
        return new int[] {r.left, r.top, r.right, r.bottom};
    }

    @Override
    public String liveText() {
        if (!info.refresh()) return null;
        return str(info.getText());
    }

    @Override
    public boolean canSetText() {
        if (!info.isEditable()) return false;
        List<AccessibilityNodeInfo.AccessibilityAction> actions = info.getActionList();
        if (actions == null) return false;
        for (AccessibilityNodeInfo.AccessibilityAction a : actions) {
            if (a.getId() == AccessibilityNodeInfo.ACTION_SET_TEXT) return true;
        }
        return false;
    }

    @Override
    public boolean setText(String text) {
        Bundle args = new Bundle();
        args.putCharSequence(AccessibilityNodeInfo.ACTION_ARGUMENT_SET_TEXT_CHARSEQUENCE, text);
        return info.performAction(AccessibilityNodeInfo.ACTION_SET_TEXT, args);
    }

    @Override
    public boolean paste() {
        return info.performAction(AccessibilityNodeInfo.ACTION_PASTE);
    }

    @Override
    public boolean offersImeEnter() {
        if (Build.VERSION.SDK_INT < 30) return false; // ACTION_IME_ENTER is API 30's
        List<AccessibilityNodeInfo.AccessibilityAction> actions = info.getActionList();
        if (actions == null) return false;
        int id = AccessibilityNodeInfo.AccessibilityAction.ACTION_IME_ENTER.getId();
        for (AccessibilityNodeInfo.AccessibilityAction a : actions) {
            if (a.getId() == id) return true;
        }
        return false;
    }

    @Override
    public boolean imeEnter() {
        return offersImeEnter() && info.performAction(AccessibilityNodeInfo.AccessibilityAction.ACTION_IME_ENTER.getId());
    }

    @Override
    public boolean focus() {
        return info.performAction(AccessibilityNodeInfo.ACTION_FOCUS) || info.performAction(AccessibilityNodeInfo.ACTION_CLICK);
    }
}
