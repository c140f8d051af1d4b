package dev.mobileagent.agent.platform;

/** The display in its current orientation: physical pixels, dpi, and quarter turns (0..3). */
public final class DisplayInfo {
    public final int width;
    public final int height;
    public final int density;
    public final int rotation;

    public DisplayInfo(int width, int height, int density, int rotation) {
        this.width = width;
        this.height = height;
        this.density = density;
        this.rotation = rotation;
    }
}
