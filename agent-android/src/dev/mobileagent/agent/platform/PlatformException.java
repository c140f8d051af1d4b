package dev.mobileagent.agent.platform;

/**
 * A platform failure with its protocol error code: injection_refused, automation_unavailable,
 * screenshot_failed, internal.
 */
public final class PlatformException extends Exception {
    public final String code;
    public final boolean retryable;

    public PlatformException(String code, String message) {
        this(code, message, false);
    }

    public PlatformException(String code, String message, boolean retryable) {
        super(message);
        this.code = code;
        this.retryable = retryable;
    }
}
