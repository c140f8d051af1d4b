package dev.mobileagent.agent.wrappers;

import android.os.Build;

/** A hidden platform API this device does not have (or has with another shape). */
public final class MissingApi extends Exception {
    public MissingApi(String api, Throwable cause) {
        super(api + " is not available on this device (" + device() + "): " + describe(cause), cause);
    }

    static String device() {
        try {
            return Build.MANUFACTURER + " " + Build.MODEL + ", Android " + Build.VERSION.RELEASE + ", API " + Build.VERSION.SDK_INT;
        } catch (RuntimeException e) {
            return "unknown device";
        }
    }

    static String describe(Throwable t) {
        if (t == null) return "missing";
        return t.getClass().getSimpleName() + (t.getMessage() == null ? "" : ": " + t.getMessage());
    }
}
