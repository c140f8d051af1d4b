package dev.mobileagent.agent.platform;

/**
 * When the agent must not read the clipboard (Platform.clipboardReadRefusal), from the facts the
 * platform knows: the uid the agent runs as and whether the device is locked. ClipboardService
 * (services/core/java/com/android/server/clipboard/ClipboardService.java, Android 13 to 16):
 * getPrimaryClip returns null while isDeviceLocked, and for a root caller naming com.android.shell
 * its addActiveOwnerLocked throws ("Calling uid 0 does not own package com.android.shell"), which
 * getPrimaryClip catches by clearing the clipboard ("Could not grant permission to primary clip.
 * Clearing clipboard.").
 */
public final class ClipboardRefusal {
    public static final int ROOT_UID = 0;

    private ClipboardRefusal() {}

    /** The refusal's words, or null when the clipboard may be read. */
    public static String of(int agentUid, boolean deviceLocked) {
        if (agentUid == ROOT_UID) {
            return "the agent runs as root (uid 0), and ClipboardService clears the clipboard on a read by root "
                + "(addActiveOwnerLocked: uid 0 does not own com.android.shell): the host launches the agent "
                + "as the shell with `su 2000` under adb root; where su is missing, run `adb unroot`";
        }
        if (deviceLocked) {
            return "the device is locked, and ClipboardService reads nothing while it is (isDeviceLocked): unlock it first";
        }
        return null;
    }
}
