package dev.mobileagent.agent.platform;

/** The attributes of one node as the platform read them (docs/protocol.md §5, NODE). */
public final class NodeAttrs {
    public String className;
    public String text;
    public String desc;
    public String res;
    public String hint;
    public String pkg;
    public int[] bounds = {0, 0, 0, 0};
    public boolean clickable;
    public boolean longClickable;
    public boolean focusable;
    public boolean focused;
    public boolean editable;
    public boolean checkable;
    public boolean checked;
    public boolean enabled = true;
    public boolean selected;
    public boolean scrollable;
    public boolean visible = true;
    public boolean password;
    /** Scroll semantics of a scrollable container, or null. */
    public ScrollInfo scroll;
    /** The index of this node in its collection (CollectionItemInfo), or null. */
    public Integer itemIndex;
    /** A virtual node of an AccessibilityNodeProvider, as Compose exposes its semantics. */
    public boolean fromProvider;

    /** Scroll semantics; items, first and last may be null when the toolkit does not say. */
    public static final class ScrollInfo {
        public boolean horizontal;
        public boolean vertical = true;
        public boolean canBack;
        public boolean canForward;
        public Integer items;
        public Integer first;
        public Integer last;
    }
}
