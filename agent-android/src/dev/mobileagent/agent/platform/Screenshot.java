package dev.mobileagent.agent.platform;

/** An encoded, upright screenshot. */
public final class Screenshot {
    public final String format;
    public final int width;
    public final int height;
    public final int rotation;
    public final byte[] data;
    /** How it was taken: Screenshots.UI_AUTOMATION or Screenshots.SCREENCAP. */
    public final String capture;
    /** Why the capture is screencap's: what UiAutomation's did (null when it is UiAutomation's). */
    public final String fallback;

    public Screenshot(String format, int width, int height, int rotation, byte[] data, String capture) {
        this(format, width, height, rotation, data, capture, null);
    }

    public Screenshot(String format, int width, int height, int rotation, byte[] data, String capture, String fallback) {
        this.fallback = fallback;
        this.format = format;
        this.width = width;
        this.height = height;
        this.rotation = rotation;
        this.data = data;
        this.capture = capture;
    }
}
