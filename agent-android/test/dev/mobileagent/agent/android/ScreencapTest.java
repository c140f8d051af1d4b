package dev.mobileagent.agent.android;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import dev.mobileagent.agent.platform.PlatformException;
import java.nio.charset.StandardCharsets;
import org.junit.Test;

/** screencap's output read whole, a failing run an error (a stand-in command plays screencap). */
public class ScreencapTest {
    @Test
    public void theToolsStandardOutputIsTheImage() throws Exception {
        byte[] png = Screencap.png(Screencap.TIMEOUT_MS, "sh", "-c", "printf '\\211PNG\\r\\n'; head -c 200000 /dev/zero");
        assertEquals(6 + 200_000, png.length);
        assertArrayEquals("\u0089PNG\r\n".getBytes(StandardCharsets.ISO_8859_1), java.util.Arrays.copyOf(png, 6));
    }

    @Test
    public void aFailingRunIsScreenshotFailed() {
        String[][] failing = {{"sh", "-c", "exit 1"}, {"sh", "-c", "true"}, {"/nonexistent/screencap", "-p"}};
        for (String[] command : failing) {
            try {
                Screencap.png(Screencap.TIMEOUT_MS, command);
                fail(String.join(" ", command) + " gave an image");
            } catch (PlatformException e) {
                assertEquals("screenshot_failed", e.code);
                assertTrue(e.getMessage(), e.getMessage().contains("screencap"));
            }
        }
    }

    /** H7: the bound covers the output too: a screencap that never ends its output is destroyed at the bound. */
    @Test
    public void aScreencapThatHangsIsEndedAtTheBound() {
        long start = System.nanoTime();
        try {
            Screencap.png(300, "sh", "-c", "printf '\\211PNG'; exec sleep 30");
            fail("a hung screencap gave an image");
        } catch (PlatformException e) {
            assertEquals("screenshot_failed", e.code);
            assertTrue(e.getMessage(), e.getMessage().contains("longer than 300 ms"));
        }
        assertTrue("returned at the bound, not when the tool ended", System.nanoTime() - start < 20_000_000_000L);
    }

    /** H5: display 0's physical id goes to -d; without one screencap takes its default. */
    @Test
    public void theCommandNamesDisplayZerosPhysicalId() {
        assertArrayEquals(new String[] {"/system/bin/screencap", "-p", "-d", "4619827259835644672"},
            Screencap.command(4619827259835644672L));
        assertArrayEquals(new String[] {"/system/bin/screencap", "-p"}, Screencap.command(null));
    }
}
