package dev.mobileagent.agent.platform;

import java.util.logging.Logger;

/**
 * A screenshot through UiAutomation, else through the screencap tool, naming the way it was taken
 * (Screenshot.capture: the screenshot result's {@code capture}, docs/protocol.md). On Android 13 and
 * 14 UiAutomationConnection.takeScreenshot hands back {@code screenshotBuffer.asBitmap()}, a HARDWARE
 * bitmap over the captured HardwareBuffer (core/java/android/app/UiAutomationConnection.java), which a
 * shell process must copy to read; no tool that runs from app_process shows that read-back working,
 * so a failure there falls back to {@code screencap -p}, which writes a PNG of the display itself.
 *
 * <p>A failed read-back can also be silent: HWUI's Bitmap::getSkBitmap (libs/hwui/hwui/Bitmap.cpp,
 * Android 10 to 16) reads a HARDWARE bitmap through uirenderer::renderthread::RenderProxy::copyHWBitmapInto
 * and ignores its result, so the copy is a non-null bitmap of zeros. A capture whose sampled pixels
 * are all zero (transparent black: a black screen is opaque, 0xFF000000) counts as failed
 * ({@link #requireNotAllZero}), and screencap is taken once; the screenshot's {@code fallback} says why.
 */
public final class Screenshots {
    public static final String UI_AUTOMATION = "ui_automation";
    public static final String SCREENCAP = "screencap";
    private static final Logger LOG = Logger.getLogger("dev.mobileagent.agent");
    private static volatile boolean fallbackLogged;

    /** One way to take the screenshot. */
    public interface Capture {
        Screenshot take() throws PlatformException;
    }

    private Screenshots() {}

    /** The primary capture's screenshot, else the fallback's; both failing is screenshot_failed naming both. */
    public static Screenshot take(Capture primary, Capture fallback) throws PlatformException {
        String primaryFailure;
        try {
            return primary.take();
        } catch (PlatformException | RuntimeException e) {
            primaryFailure = describe(e);
        }
        if (!fallbackLogged) {
            fallbackLogged = true;
            LOG.warning("UiAutomation's screenshot failed (" + primaryFailure + "): taking it with screencap");
        }
        try {
            Screenshot s = fallback.take();
            return new Screenshot(s.format, s.width, s.height, s.rotation, s.data, s.capture, primaryFailure);
        } catch (PlatformException | RuntimeException e) {
            throw new PlatformException("screenshot_failed",
                "UiAutomation's screenshot failed (" + primaryFailure + "), and screencap's (" + describe(e) + ")");
        }
    }

    /** How many pixels along each side {@link #samplePoints} takes. */
    public static final int SAMPLES_PER_SIDE = 16;

    /** The {x, y} of a grid of pixels spread over a width-by-height image, centres of its cells. */
    public static int[][] samplePoints(int width, int height) {
        int n = SAMPLES_PER_SIDE;
        int[][] out = new int[n * n][];
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                out[i * n + j] = new int[] {(int) ((2L * i + 1) * width / (2L * n)), (int) ((2L * j + 1) * height / (2L * n))};
            }
        }
        return out;
    }

    /** screenshot_failed when every sampled ARGB pixel is zero: a read-back that silently failed. */
    public static void requireNotAllZero(int[] argbSamples) throws PlatformException {
        for (int px : argbSamples) if (px != 0) return;
        throw new PlatformException("screenshot_failed",
            "UiAutomation's image read back all zero (a failed HARDWARE bitmap copy: Bitmap::getSkBitmap ignores it)");
    }

    private static String describe(Exception e) {
        return e.getMessage() != null ? e.getMessage() : e.toString();
    }
}
