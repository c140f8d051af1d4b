package android.view.accessibility;

/** Compile-only stub of android.view.accessibility.AccessibilityRecord. */
public class AccessibilityRecord {
    AccessibilityRecord() { throw new RuntimeException("Stub!"); }
    public AccessibilityNodeInfo getSource() { throw new RuntimeException("Stub!"); }
    public int getWindowId() { throw new RuntimeException("Stub!"); }
}
