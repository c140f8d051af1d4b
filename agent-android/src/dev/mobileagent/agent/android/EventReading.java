package dev.mobileagent.agent.android;

import android.view.accessibility.AccessibilityEvent;
import dev.mobileagent.agent.platform.PlatformEvent;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * An accessibility event reduced to what the agent acts on, from what the event itself carries:
 * its type, its content change types, its window and the id of its source node. This runs on
 * UiAutomation's callback thread for every event, so it never calls into the app: the event's
 * source node is named by its id (wrappers/NodeIds), not fetched with AccessibilityRecord.getSource,
 * which goes through AccessibilityInteractionClient to the app's UI thread and waits up to its
 * interaction timeout (5 s) unless the node is cached; during a fling every event would queue
 * behind such a call, and with them event delivery and the idle wait.
 */
final class EventReading {
    private EventReading() {}

    /**
     * The event of this type (AccessibilityEvent.TYPE_*), content change types (for
     * AccessibilityEvent.TYPE_WINDOW_CONTENT_CHANGED), window, and source node key (null: the event names none).
     */
    static PlatformEvent of(int type, int contentChangeTypes, int windowId, Object sourceKey) {
        if (type == AccessibilityEvent.TYPE_WINDOWS_CHANGED) {
            return new PlatformEvent(PlatformEvent.WINDOWS, -1, null, null);
        }
        Set<String> kinds = kinds(type, contentChangeTypes);
        if (kinds == null) return new PlatformEvent(PlatformEvent.OTHER, windowId, null, null);
        List<Object> nodes = new ArrayList<>(1);
        if (sourceKey != null) nodes.add(sourceKey);
        return new PlatformEvent(PlatformEvent.CONTENT, windowId, nodes, kinds);
    }

    /**
     * The toast an event announces, or null: a TYPE_NOTIFICATION_STATE_CHANGED event whose class is
     * {@code android.widget.Toast} (Android 11 and later: SystemUI's ToastPresenter.trySendAccessibilityEvent
     * sets Toast.class.getName(); before, Toast.TN's set {@code android.widget.Toast$TN}), its text the
     * event's text parts joined by newlines (AOSP: frameworks/base/core/java/android/widget/ToastPresenter.java,
     * services/.../notification/NotificationManagerService.java enqueueTextToast, AccessibilityManager
     * .sendAccessibilityEvent). A notification's own event (class Notification) is not a toast.
     */
    static PlatformEvent toast(int type, CharSequence className, List<CharSequence> text, CharSequence packageName,
                               long atMs) {
        if (type != AccessibilityEvent.TYPE_NOTIFICATION_STATE_CHANGED || className == null) return null;
        String cls = className.toString();
        if (!cls.equals(TOAST_CLASS) && !cls.startsWith(TOAST_CLASS + "$")) return null;
        StringBuilder joined = new StringBuilder();
        if (text != null) {
            for (CharSequence part : text) {
                if (part == null) continue;
                if (joined.length() > 0) joined.append('\n');
                joined.append(part);
            }
        }
        return PlatformEvent.toast(joined.toString(), packageName == null ? null : packageName.toString(), cls, atMs);
    }

    static final String TOAST_CLASS = "android.widget.Toast";

    /** The change kinds of a content event; null for an event that changes no content. */
    private static Set<String> kinds(int type, int changes) {
        Set<String> kinds = new HashSet<>();
        switch (type) {
            case AccessibilityEvent.TYPE_WINDOW_CONTENT_CHANGED:
                if ((changes & AccessibilityEvent.CONTENT_CHANGE_TYPE_SUBTREE) != 0) kinds.add("structure");
                if ((changes & AccessibilityEvent.CONTENT_CHANGE_TYPE_TEXT) != 0) kinds.add("text");
                if ((changes & AccessibilityEvent.CONTENT_CHANGE_TYPE_CONTENT_DESCRIPTION) != 0) kinds.add("content");
                if ((changes & AccessibilityEvent.CONTENT_CHANGE_TYPE_STATE_DESCRIPTION) != 0) kinds.add("state");
                if (kinds.isEmpty()) kinds.add("content");
                return kinds;
            case AccessibilityEvent.TYPE_VIEW_TEXT_CHANGED: kinds.add("text"); return kinds;
            case AccessibilityEvent.TYPE_VIEW_SCROLLED: kinds.add("scroll"); return kinds;
            case AccessibilityEvent.TYPE_VIEW_TEXT_SELECTION_CHANGED: kinds.add("selection"); return kinds;
            case AccessibilityEvent.TYPE_VIEW_SELECTED:
            case AccessibilityEvent.TYPE_VIEW_FOCUSED:
            case AccessibilityEvent.TYPE_VIEW_CLICKED:
            case AccessibilityEvent.TYPE_VIEW_LONG_CLICKED: kinds.add("state"); return kinds;
            case AccessibilityEvent.TYPE_WINDOW_STATE_CHANGED: kinds.add("structure"); return kinds;
            default: return null;
        }
    }
}
