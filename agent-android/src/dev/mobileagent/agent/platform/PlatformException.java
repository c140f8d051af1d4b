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

    /** What to enable when injection is refused: some vendors require a developer setting for adb. */
    public static final String INJECTION_ADVICE = "the platform refused injected input; enable input injection "
        + "for adb (on Xiaomi devices \"USB debugging (Security settings)\" in the developer options, on some "
        + "other vendors a similar developer setting), then start the agent again";

    /** injection_refused with the advice and the platform's own words. */
    public static PlatformException injectionRefused(String detail) {
        return new PlatformException("injection_refused", INJECTION_ADVICE + (detail == null ? "" : " (" + detail + ")"));
    }

    public PlatformException(String code, String message, boolean retryable) {
        super(message);
        this.code = code;
        this.retryable = retryable;
    }
}
