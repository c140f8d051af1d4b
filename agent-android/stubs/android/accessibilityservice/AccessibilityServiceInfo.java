package android.accessibilityservice;

/** Compile-only stub of android.accessibilityservice.AccessibilityServiceInfo. */
public class AccessibilityServiceInfo {
    public static final int FLAG_INCLUDE_NOT_IMPORTANT_VIEWS = 2;
    public static final int FLAG_REPORT_VIEW_IDS = 16;
    public static final int FLAG_RETRIEVE_INTERACTIVE_WINDOWS = 64;
    public int eventTypes;
    public int flags;

    public AccessibilityServiceInfo() { throw new RuntimeException("Stub!"); }
}
