package dev.mobileagent.agent.android;

import android.accessibilityservice.AccessibilityServiceInfo;
import android.view.accessibility.AccessibilityEvent;
import dev.mobileagent.agent.platform.PlatformException;

/**
 * The flags the agent needs on UI automation's accessibility service: every interactive window,
 * resource ids, every node, every event type. UiAutomation.getServiceInfo() returns null while the
 * service's connection is not there (core/java/android/app/UiAutomation.java: no connection for
 * the connection id), and without FLAG_RETRIEVE_INTERACTIVE_WINDOWS getWindows() is empty, so a
 * null info fails the start loudly rather than leaving every snapshot without windows.
 */
final class ServiceFlags {
    static final int FLAGS = AccessibilityServiceInfo.FLAG_RETRIEVE_INTERACTIVE_WINDOWS
        | AccessibilityServiceInfo.FLAG_REPORT_VIEW_IDS
        | AccessibilityServiceInfo.FLAG_INCLUDE_NOT_IMPORTANT_VIEWS;

    private ServiceFlags() {}

    static AccessibilityServiceInfo withAgentFlags(AccessibilityServiceInfo info) throws PlatformException {
        if (info == null) {
            throw new PlatformException("automation_unavailable", "UiAutomation.getServiceInfo() returned null: the "
                + "accessibility service of UI automation is not connected, so no window could be listed");
        }
        info.flags |= FLAGS;
        info.eventTypes = AccessibilityEvent.TYPES_ALL_MASK;
        return info;
    }
}
