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

    public Screenshot(String format, int width, int height, int rotation, byte[] data, String capture) {
        this.format = format;
        this.width = width;
        this.height = height;
        this.rotation = rotation;
        this.data = data;
        this.capture = capture;
    }
}
