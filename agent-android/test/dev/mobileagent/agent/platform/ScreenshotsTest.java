package dev.mobileagent.agent.platform;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.Test;

/** UiAutomation's capture, else screencap's, naming the one used; both failing names both. */
public class ScreenshotsTest {
    static Screenshot shot(String capture) {
        return new Screenshot("png", 1, 1, 0, new byte[] {1}, capture);
    }

    @Test
    public void theFallbackIsNotTakenWhenUiAutomationsCaptureWorks() throws Exception {
        AtomicInteger fallbacks = new AtomicInteger();
        Screenshot s = Screenshots.take(() -> shot(Screenshots.UI_AUTOMATION), () -> {
            fallbacks.incrementAndGet();
            return shot(Screenshots.SCREENCAP);
        });
        assertEquals(Screenshots.UI_AUTOMATION, s.capture);
        assertEquals(0, fallbacks.get());
    }

    @Test
    public void aFailingReadBackFallsBackToScreencap() throws Exception {
        Screenshot s = Screenshots.take(() -> {
            throw new IllegalStateException("unable to copy the HARDWARE bitmap");
        }, () -> shot(Screenshots.SCREENCAP));
        assertEquals(Screenshots.SCREENCAP, s.capture);
    }

    @Test
    public void bothFailingIsScreenshotFailedNamingBoth() {
        try {
            Screenshots.take(() -> {
                throw new PlatformException("screenshot_failed", "UiAutomation.takeScreenshot returned no image");
            }, () -> {
                throw new PlatformException("screenshot_failed", "screencap exited 1 with 0 bytes");
            });
            fail("no error");
        } catch (PlatformException e) {
            assertEquals("screenshot_failed", e.code);
            String m = e.getMessage();
            assertTrue(m, m.contains("returned no image") && m.contains("exited 1"));
        }
    }
}
