package dev.mobileagent.agent.platform;

import java.util.List;

/**
 * Everything that touches Android: windows and nodes, events, input injection, screenshots, the
 * clipboard and the display. AndroidPlatform implements it over UiAutomation; the host tests use
 * FakePlatform. Every method may be called from any worker thread.
 */
public interface Platform {
    /** Every interactive window (keyboard and system UI included), top-most first. */
    List<RawWindow> windows() throws PlatformException;

    DisplayInfo display() throws PlatformException;

    /**
     * The bounds of the task that holds the focused window ({left, top, right, bottom}: the display
     * for a full-screen task, half of it in split screen, the window's frame for a freeform task), or
     * null when the platform cannot tell.
     */
    int[] focusedTaskBounds();

    /** Where accessibility events go; called on the platform's own thread. */
    void setEventSink(EventSink sink);

    /** Injects one touch event: action 0 down, 1 up, 2 move. Returns the platform's verdict. */
    boolean injectTouch(int action, int x, int y, long downTimeMs, long eventTimeMs) throws PlatformException;

    /**
     * Injects one MotionEvent of several pointers (input/MultiTouch): {@code action} with the
     * pointer index in it (ACTION_POINTER_DOWN/UP), the pointers' ids and positions ordered by id.
     * Returns the platform's verdict.
     */
    boolean injectMotion(int action, int[] ids, int[] xs, int[] ys, long downTimeMs, long eventTimeMs)
        throws PlatformException;

    /**
     * Injects one key event: action 0 down, 1 up. Returns the platform's verdict, which means the
     * event was handed to the input dispatcher: the app handles it later (INJECT_INPUT_EVENT_MODE_ASYNC).
     */
    boolean injectKey(int action, int code, int meta, long downTimeMs, long eventTimeMs) throws PlatformException;

    /**
     * Injects one key event (INJECT_INPUT_EVENT_MODE_WAIT_FOR_FINISH) and waits at most
     * {@code waitMs} for the focused app to finish handling it: HANDLED, REFUSED (the dispatcher
     * refused it or timed it out), or PENDING when the wait ran out first. InputManagerService waits
     * up to INJECTION_TIMEOUT_MILLIS (30 s) for a busy app, so the platform bounds the wait itself
     * (the injecting call goes on on a thread of its own); a PENDING key is still queued for the app.
     */
    KeyWait injectKeyAndWait(int action, int code, int meta, long downTimeMs, long eventTimeMs, long waitMs)
        throws PlatformException;

    /** How a key injected waiting for the app came out. */
    enum KeyWait { HANDLED, REFUSED, PENDING }

    /** The key events that type {@code text} with the virtual key map, or null when it cannot type all of it. */
    List<KeyStroke> keyStrokesFor(String text);

    /** The node that has input focus, or null. */
    PNode focusedInput() throws PlatformException;

    /**
     * Why reading the primary clip now would give nothing or destroy it, or null when it may be
     * read: the agent runs as root (ClipboardService.getPrimaryClip's addActiveOwnerLocked finds
     * that uid 0 does not own com.android.shell, throws, and clears the clipboard, Android 13 to 16),
     * or the device is locked (getPrimaryClip and hasPrimaryClip answer nothing while
     * isDeviceLocked). A paste then skips its save and restore; clipboard_get answers an error.
     */
    String clipboardReadRefusal();

    /** What saveClipboard returns for a clip the platform has but the shell may not read. */
    Object UNREADABLE_CLIP = new Object() {
        @Override
        public String toString() {
            return "a clip the shell may not read";
        }
    };

    /**
     * The primary clip, opaque, so that it can be put back; null when the clipboard is empty,
     * UNREADABLE_CLIP when a clip is there that the shell may not read.
     */
    Object saveClipboard() throws PlatformException;

    /**
     * Sets the primary clip to {@code text} as the shell. With {@code unseen} the clip carries
     * SystemUI's EXTRA_SUPPRESS_OVERLAY, so that Android 13+ shows no clipboard overlay for it
     * (ClipboardListener.shouldSuppressOverlay honours it for clips from com.android.shell).
     */
    void setClipboardText(String text, boolean unseen) throws PlatformException;

    /**
     * Puts back what saveClipboard returned (null: clears the clipboard; UNREADABLE_CLIP: leaves
     * the clipboard alone, as clearing it would wipe the user's clip), with {@code unseen} as above.
     * The platform may refuse a clip the shell may not set (one holding content URIs:
     * ClipboardService's URI permission check throws SecurityException): a PlatformException.
     */
    void restoreClipboard(Object saved, boolean unseen) throws PlatformException;

    /**
     * The primary clip's text (its first item's), null when the clipboard is empty; a
     * PlatformException when a clip is there that the shell may not read.
     */
    String readClipboardText() throws PlatformException;

    /** An upright screenshot in every display orientation; never a blank image. */
    Screenshot screenshot(String format, int quality) throws PlatformException;

    /**
     * Drops the platform's own cached nodes (the accessibility framework caches them too), so that
     * an evicted window is read from the app again. Best effort: a failure only costs freshness.
     */
    void dropCachedNodes();

    /**
     * Releases UI automation; idempotent. It leaves the display's rotation as it is now: never
     * UiAutomation.disconnect(), which restores the rotation state it saw at connect.
     */
    void release();

    /** Receives accessibility events. */
    interface EventSink {
        void onEvent(PlatformEvent event);
    }
}
