package dev.mobileagent.agent.platform;

import java.util.logging.Logger;

/**
 * A screenshot through UiAutomation, else through the screencap tool, naming the way it was taken
 * (Screenshot.capture: the screenshot result's {@code capture}, docs/protocol.md). On Android 13 and
 * 14 UiAutomationConnection.takeScreenshot hands back {@code screenshotBuffer.asBitmap()}, a HARDWARE
 * bitmap over the captured HardwareBuffer (core/java/android/app/UiAutomationConnection.java), which a
 * shell process must copy to read; no tool that runs from app_process shows that read-back working,
 * so a failure there falls back to {@code screencap -p}, which writes a PNG of the display itself.
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
            return fallback.take();
        } catch (PlatformException | RuntimeException e) {
            throw new PlatformException("screenshot_failed",
                "UiAutomation's screenshot failed (" + primaryFailure + "), and screencap's (" + describe(e) + ")");
        }
    }

    private static String describe(Exception e) {
        return e.getMessage() != null ? e.getMessage() : e.toString();
    }
}
