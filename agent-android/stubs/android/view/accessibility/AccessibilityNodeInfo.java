package android.view.accessibility;

import android.graphics.Rect;
import android.os.Bundle;
import java.util.List;

/** Compile-only stub of android.view.accessibility.AccessibilityNodeInfo. */
public class AccessibilityNodeInfo {
    public static final int FOCUS_INPUT = 1;
    public static final int ACTION_FOCUS = 1;
    public static final int ACTION_CLICK = 16;
    public static final int ACTION_SCROLL_FORWARD = 4096;
    public static final int ACTION_SCROLL_BACKWARD = 8192;
    public static final int ACTION_PASTE = 32768;
    public static final int ACTION_SET_TEXT = 2097152;
    public static final String ACTION_ARGUMENT_SET_TEXT_CHARSEQUENCE = "ACTION_ARGUMENT_SET_TEXT_CHARSEQUENCE";

    AccessibilityNodeInfo() { throw new RuntimeException("Stub!"); }

    public static final class AccessibilityAction {
        public static final AccessibilityAction ACTION_IME_ENTER = null;
        AccessibilityAction() { throw new RuntimeException("Stub!"); }
        public int getId() { throw new RuntimeException("Stub!"); }
        public CharSequence getLabel() { throw new RuntimeException("Stub!"); }
    }

    public static final class RangeInfo {
        public static final int RANGE_TYPE_INT = 0;
        public static final int RANGE_TYPE_FLOAT = 1;
        public static final int RANGE_TYPE_PERCENT = 2;
        RangeInfo() { throw new RuntimeException("Stub!"); }
        public int getType() { throw new RuntimeException("Stub!"); }
        public float getMin() { throw new RuntimeException("Stub!"); }
        public float getMax() { throw new RuntimeException("Stub!"); }
        public float getCurrent() { throw new RuntimeException("Stub!"); }
    }

    public static final class CollectionInfo {
        CollectionInfo() { throw new RuntimeException("Stub!"); }
        public int getRowCount() { throw new RuntimeException("Stub!"); }
        public int getColumnCount() { throw new RuntimeException("Stub!"); }
    }

    public static final class CollectionItemInfo {
        CollectionItemInfo() { throw new RuntimeException("Stub!"); }
        public int getRowIndex() { throw new RuntimeException("Stub!"); }
        public int getColumnIndex() { throw new RuntimeException("Stub!"); }
    }

    public int getChildCount() { throw new RuntimeException("Stub!"); }
    public int getWindowId() { throw new RuntimeException("Stub!"); }
    public AccessibilityNodeInfo getChild(int index) { throw new RuntimeException("Stub!"); }
    public boolean refresh() { throw new RuntimeException("Stub!"); }
    public List<AccessibilityAction> getActionList() { throw new RuntimeException("Stub!"); }
    public boolean performAction(int action) { throw new RuntimeException("Stub!"); }
    public boolean performAction(int action, Bundle arguments) { throw new RuntimeException("Stub!"); }
    public void getBoundsInScreen(Rect outBounds) { throw new RuntimeException("Stub!"); }
    public boolean isCheckable() { throw new RuntimeException("Stub!"); }
    public boolean isChecked() { throw new RuntimeException("Stub!"); }
    public boolean isFocusable() { throw new RuntimeException("Stub!"); }
    public boolean isFocused() { throw new RuntimeException("Stub!"); }
    public boolean isVisibleToUser() { throw new RuntimeException("Stub!"); }
    public boolean isSelected() { throw new RuntimeException("Stub!"); }
    public boolean isClickable() { throw new RuntimeException("Stub!"); }
    public boolean isLongClickable() { throw new RuntimeException("Stub!"); }
    public boolean isEnabled() { throw new RuntimeException("Stub!"); }
    public boolean isPassword() { throw new RuntimeException("Stub!"); }
    public boolean isScrollable() { throw new RuntimeException("Stub!"); }
    public boolean isEditable() { throw new RuntimeException("Stub!"); }
    public CollectionInfo getCollectionInfo() { throw new RuntimeException("Stub!"); }
    public CollectionItemInfo getCollectionItemInfo() { throw new RuntimeException("Stub!"); }
    public CharSequence getPackageName() { throw new RuntimeException("Stub!"); }
    public CharSequence getClassName() { throw new RuntimeException("Stub!"); }
    public CharSequence getText() { throw new RuntimeException("Stub!"); }
    public CharSequence getHintText() { throw new RuntimeException("Stub!"); }
    public CharSequence getContentDescription() { throw new RuntimeException("Stub!"); }
    public String getViewIdResourceName() { throw new RuntimeException("Stub!"); }
    public void recycle() { throw new RuntimeException("Stub!"); }
    public Bundle getExtras() { throw new RuntimeException("Stub!"); }
    public CharSequence getStateDescription() { throw new RuntimeException("Stub!"); }
    public CharSequence getError() { throw new RuntimeException("Stub!"); }
    public RangeInfo getRangeInfo() { throw new RuntimeException("Stub!"); }
    public boolean isImportantForAccessibility() { throw new RuntimeException("Stub!"); }
    public AccessibilityNodeInfo getLabeledBy() { throw new RuntimeException("Stub!"); }
    public AccessibilityNodeInfo getTraversalBefore() { throw new RuntimeException("Stub!"); }
    public AccessibilityNodeInfo getTraversalAfter() { throw new RuntimeException("Stub!"); }
}
