package dev.mobileagent.agent.platform;

import java.util.ArrayList;
import java.util.List;

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

    // the accessibility fields (docs/protocol.md, NODE, capability a11y_fields): sent only where
    // they differ from these defaults
    /** The role description a screen reader speaks (the roleDescription extra), or null. */
    public String role;
    /** getStateDescription() (API 30), or null. */
    public String state;
    /** getRangeInfo(), or null. */
    public RangeInfo range;
    /** getError(), or null. */
    public String error;
    /** The actions beyond those the flags say: standard ones by name, custom ones by label. */
    public List<String> actions = new ArrayList<>();
    /** isImportantForAccessibility() (API 24). */
    public boolean important = true;
    /** The key (PNode.key) of the node getLabeledBy() names, or null. */
    public Object labeledBy;
    /** The key of the node getTraversalBefore() names, or null. */
    public Object traversalBefore;
    /** The key of the node getTraversalAfter() names, or null. */
    public Object traversalAfter;

    /** A slider's or a progress bar's range: type int, float or percent (RangeInfo.RANGE_TYPE_*). */
    public static final class RangeInfo {
        public String type = "float";
        public double min;
        public double max;
        public double current;
    }

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
