package android.app;

import android.accessibilityservice.AccessibilityServiceInfo;
import android.graphics.Bitmap;
import android.view.InputEvent;
import android.view.accessibility.AccessibilityEvent;
import android.view.accessibility.AccessibilityNodeInfo;
import android.view.accessibility.AccessibilityWindowInfo;
import java.util.List;

/** Compile-only stub of android.app.UiAutomation (API 18; the constructor and connect are hidden). */
public final class UiAutomation {
    public static final int FLAG_DONT_SUPPRESS_ACCESSIBILITY_SERVICES = 1;

    UiAutomation() { throw new RuntimeException("Stub!"); }

    public static interface OnAccessibilityEventListener {
        void onAccessibilityEvent(AccessibilityEvent event);
    }

    public void setOnAccessibilityEventListener(OnAccessibilityEventListener listener) { throw new RuntimeException("Stub!"); }
    public final AccessibilityServiceInfo getServiceInfo() { throw new RuntimeException("Stub!"); }
    public final void setServiceInfo(AccessibilityServiceInfo info) { throw new RuntimeException("Stub!"); }
    public List<AccessibilityWindowInfo> getWindows() { throw new RuntimeException("Stub!"); }
    public AccessibilityNodeInfo findFocus(int focus) { throw new RuntimeException("Stub!"); }
    public boolean injectInputEvent(InputEvent event, boolean sync) { throw new RuntimeException("Stub!"); }
    public Bitmap takeScreenshot() { throw new RuntimeException("Stub!"); }
}
