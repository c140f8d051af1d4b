package dev.mobileagent.agent.core;

import static dev.mobileagent.agent.Support.call;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import dev.mobileagent.agent.Support;
import dev.mobileagent.agent.fake.FakeClock;
import dev.mobileagent.agent.fake.FakePlatform;
import dev.mobileagent.agent.fake.Fixtures;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.util.Base64;
import javax.imageio.ImageIO;
import org.json.JSONObject;
import org.junit.Test;

/** Screenshots: upright with the display's rotation, png or jpeg, a failure an error. */
public class ScreenshotTest {
    final FakeClock clock = new FakeClock();

    static BufferedImage decode(JSONObject r) throws Exception {
        return ImageIO.read(new ByteArrayInputStream(Base64.getDecoder().decode(r.getString("data"))));
    }

    @Test
    public void aLandscapeScreenshotHasLandscapeDimensionsAndTheDisplayOrientation() throws Exception {
        FakePlatform p = Fixtures.fixedUi().display(2400, 1080, 420, 1);
        JSONObject r = call(new Agent(p, clock), clock, "screenshot", "{\"format\":\"png\"}");
        assertEquals("png", r.getString("format"));
        assertEquals(2400, r.getInt("width"));
        assertEquals(1080, r.getInt("height"));
        assertEquals(1, r.getInt("rotation"));
        BufferedImage img = decode(r);
        assertEquals(2400, img.getWidth());
        assertEquals(1080, img.getHeight());
    }

    @Test
    public void aJpegScreenshotIsAJpeg() throws Exception {
        JSONObject r = call(new Agent(Fixtures.fixedUi(), clock), clock, "screenshot", "{\"format\":\"jpeg\",\"quality\":50}");
        byte[] data = Base64.getDecoder().decode(r.getString("data"));
        assertEquals(0xff, data[0] & 0xff);
        assertEquals(0xd8, data[1] & 0xff);
        assertEquals(1080, decode(r).getWidth());
    }

    @Test
    public void theUsualCaptureIsUiAutomationsAndTheResultSaysSo() throws Exception {
        JSONObject r = call(new Agent(Fixtures.fixedUi(), clock), clock, "screenshot", "{}");
        assertEquals("ui_automation", r.getString("capture"));
    }

    @Test
    public void aHardwareBitmapThatCannotBeReadBackFallsBackToScreencapAndTheResultSaysSo() throws Exception {
        // UiAutomationConnection.takeScreenshot returns screenshotBuffer.asBitmap() (HARDWARE) on Android 13/14
        FakePlatform p = Fixtures.fixedUi().display(2400, 1080, 420, 1);
        p.hardwareReadBackFails = true;
        JSONObject r = call(new Agent(p, clock), clock, "screenshot", "{\"format\":\"png\"}");
        assertEquals("screencap", r.getString("capture"));
        assertEquals(2400, decode(r).getWidth());
        assertEquals(1, r.getInt("rotation"));
    }

    @Test
    public void aFailedCaptureIsAnErrorNeverABlankImage() throws Exception {
        FakePlatform p = Fixtures.fixedUi();
        p.failScreenshots = true;
        try {
            call(new Agent(p, clock), clock, "screenshot", "{}");
            fail("a failed capture returned an image");
        } catch (AgentError e) {
            assertEquals("screenshot_failed", e.code);
        }
    }

    @Test
    public void anUnknownFormatIsInvalidParams() throws Exception {
        try {
            call(new Agent(Fixtures.fixedUi(), clock), clock, "screenshot", "{\"format\":\"gif\"}");
            fail();
        } catch (AgentError e) {
            assertEquals("invalid_params", e.code);
        }
    }

    @Test
    public void theLandscapeTheUserLockedOutlivesTheAgentsIdleExit() throws Exception {
        // UiAutomation.disconnect() would freeze the display back at the rotation it saw at connect
        // (UiAutomationConnection.restoreRotationStateLocked); the agent releases without it
        FakePlatform p = Fixtures.fixedUi();
        try (Support.Harness h = new Support.Harness(p, 150)) {
            p.freezeRotation(1);
            assertTrue("the agent exits on its idle bound", h.exiter.await(5000));
        }
        assertTrue(p.released);
        assertEquals(1, p.display().rotation);
        assertEquals(2400, p.display().width);
        assertTrue(p.rotationFrozen());
        p.disconnect(); // what the agent's old release did
        assertEquals("disconnect() puts the connect-time rotation back", 0, p.display().rotation);
    }

    /**
     * H4: a read-back that fails silently gives a bitmap of zeros (HWUI's Bitmap::getSkBitmap
     * ignores the copy's result); the agent samples it, takes screencap once, and says why.
     */
    @Test
    public void anAllZeroReadBackIsTakenWithScreencapAndSaysSo() throws Exception {
        FakePlatform p = Fixtures.fixedUi();
        p.hardwareReadBackBlack = true;
        JSONObject r = call(new Agent(p, clock), clock, "screenshot", "{\"format\":\"png\"}");
        assertEquals("screencap", r.getString("capture"));
        assertTrue(r.toString(), r.getString("fallback").contains("all zero"));
        BufferedImage img = decode(r);
        assertTrue("the image is the screen, not black", (img.getRGB(540, 1200) & 0xffffff) != 0);
    }

    @Test
    public void aReadBackThatWorksSaysNoFallback() throws Exception {
        JSONObject r = call(new Agent(Fixtures.fixedUi(), clock), clock, "screenshot", "{\"format\":\"png\"}");
        assertEquals("ui_automation", r.getString("capture"));
        assertTrue(r.toString(), !r.has("fallback"));
    }
}
