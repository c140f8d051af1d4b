package android.view.accessibility;

/** Compile-only stub of android.view.accessibility.AccessibilityRecord. */
public class AccessibilityRecord {
    AccessibilityRecord() { throw new RuntimeException("Stub!"); }
    public AccessibilityNodeInfo getSource() { throw new RuntimeException("Stub!"); }
    public int getWindowId() { throw new RuntimeException("Stub!"); }
    public CharSequence getClassName() { throw new RuntimeException("Stub!"); }
    public java.util.List<CharSequence> getText() { throw new RuntimeException("Stub!"); }
}
