package dev.mobileagent.agent.android;

import android.graphics.Rect;
import android.view.accessibility.AccessibilityNodeInfo;
import android.view.accessibility.AccessibilityWindowInfo;
import dev.mobileagent.agent.platform.PNode;
import dev.mobileagent.agent.platform.RawWindow;

/** An AccessibilityWindowInfo, its facts read once. */
final class AndroidWindow implements RawWindow {
    private final AccessibilityWindowInfo info;
    private final int id;
    private final String type;
    private final String title;
    private final int layer;
    private final boolean focused;
    private final boolean active;
    private final int[] bounds;

    AndroidWindow(AccessibilityWindowInfo info) {
        this.info = info;
        this.id = info.getId();
        this.type = type(info.getType());
        this.title = title(info);
        this.layer = info.getLayer();
        this.focused = info.isFocused();
        this.active = info.isActive();
        Rect r = new Rect();
        info.getBoundsInScreen(r);
        this.bounds = new int[] {r.left, r.top, r.right, r.bottom};
    }

    static String type(int t) {
        switch (t) {
            case AccessibilityWindowInfo.TYPE_INPUT_METHOD: return "input_method";
            case AccessibilityWindowInfo.TYPE_SYSTEM: return "system";
            case AccessibilityWindowInfo.TYPE_ACCESSIBILITY_OVERLAY: return "accessibility_overlay";
            case AccessibilityWindowInfo.TYPE_SPLIT_SCREEN_DIVIDER: return "split_screen_divider";
            case AccessibilityWindowInfo.TYPE_MAGNIFICATION_OVERLAY: return "magnification_overlay";
            default: return "application";
        }
    }

    private static String title(AccessibilityWindowInfo info) {
        try {
            CharSequence t = info.getTitle(); // API 24
            return t == null ? null : t.toString();
        } catch (NoSuchMethodError e) {
            return null;
        }
    }

    @Override public int id() { return id; }
    @Override public String type() { return type; }
    @Override public String title() { return title; }
    @Override public int layer() { return layer; }
    @Override public boolean focused() { return focused; }
    @Override public boolean active() { return active; }
    @Override public int[] bounds() { return bounds.clone(); }

    @Override
    public PNode root() {
        AccessibilityNodeInfo root = info.getRoot();
        return root == null ? null : new AndroidNode(root);
    }
}
