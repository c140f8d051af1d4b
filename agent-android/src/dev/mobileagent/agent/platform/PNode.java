package dev.mobileagent.agent.platform;

/** One node of a window's tree as the platform holds it (an AccessibilityNodeInfo on Android). */
public interface PNode {
    /** Identity of the node for id stability: equal keys are the same node of the same window. */
    Object key();

    /** The attributes read with the node. */
    NodeAttrs attrs();

    int childCount();

    /** The child, or null when it is gone (the subtree was torn down while it was read). */
    PNode child(int index);

    /** The node's current bounds from the live tree, or null when the node is gone. */
    int[] liveBounds();

    /** The node's current text from the live tree, or null when it has none or is gone. */
    String liveText();

    /** Whether the node accepts text set directly (an editable node offering ACTION_SET_TEXT). */
    boolean canSetText();

    boolean setText(String text);

    /** Pastes the clipboard into the node (ACTION_PASTE); false when refused. */
    boolean paste();

    /** Gives the node input focus; false when refused. */
    boolean focus();

    /**
     * Whether the node offers AccessibilityAction.ACTION_IME_ENTER (API 30+): TextView adds it to a
     * focused editable field (TextView.onInitializeAccessibilityNodeInfoInternal), Compose to a text
     * field with an IME action.
     */
    boolean offersImeEnter();

    /** Performs ACTION_IME_ENTER, the field's IME action (search, go, done...); false when refused. */
    boolean imeEnter();
}
