package android.view.accessibility;

/** Compile-only stub of android.view.accessibility.AccessibilityEvent. */
public final class AccessibilityEvent extends AccessibilityRecord {
    public static final int TYPE_VIEW_CLICKED = 1;
    public static final int TYPE_VIEW_LONG_CLICKED = 2;
    public static final int TYPE_VIEW_SELECTED = 4;
    public static final int TYPE_VIEW_FOCUSED = 8;
    public static final int TYPE_VIEW_TEXT_CHANGED = 16;
    public static final int TYPE_WINDOW_STATE_CHANGED = 32;
    public static final int TYPE_NOTIFICATION_STATE_CHANGED = 64;
    public static final int TYPE_WINDOW_CONTENT_CHANGED = 2048;
    public static final int TYPE_VIEW_SCROLLED = 4096;
    public static final int TYPE_VIEW_TEXT_SELECTION_CHANGED = 8192;
    public static final int TYPE_WINDOWS_CHANGED = 4194304;
    public static final int TYPES_ALL_MASK = -1;
    public static final int CONTENT_CHANGE_TYPE_SUBTREE = 1;
    public static final int CONTENT_CHANGE_TYPE_TEXT = 2;
    public static final int CONTENT_CHANGE_TYPE_CONTENT_DESCRIPTION = 4;
    public static final int CONTENT_CHANGE_TYPE_STATE_DESCRIPTION = 64;

    AccessibilityEvent() { throw new RuntimeException("Stub!"); }
    public int getEventType() { throw new RuntimeException("Stub!"); }
    public int getContentChangeTypes() { throw new RuntimeException("Stub!"); }
    public CharSequence getPackageName() { throw new RuntimeException("Stub!"); }
    public long getEventTime() { throw new RuntimeException("Stub!"); }
}
