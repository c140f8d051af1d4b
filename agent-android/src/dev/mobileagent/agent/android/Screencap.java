package dev.mobileagent.agent.android;

import dev.mobileagent.agent.platform.PlatformException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.concurrent.TimeUnit;

/**
 * The display as a PNG from the platform's screencap tool (frameworks/base cmds/screencap,
 * {@code screencap -p}: PNG on standard output), which the shell user may run: the agent's
 * fallback when UiAutomation's screenshot cannot be read back.
 */
final class Screencap {
    static final String[] COMMAND = {"/system/bin/screencap", "-p"};
    static final long TIMEOUT_MS = 10_000;

    private Screencap() {}

    /** The PNG bytes {@code command} writes, or screenshot_failed. */
    static byte[] png(String... command) throws PlatformException {
        Process p;
        try {
            p = new ProcessBuilder(command).redirectErrorStream(false).start();
        } catch (IOException e) {
            throw new PlatformException("screenshot_failed", "cannot run screencap: " + e.getMessage());
        }
        try {
            p.getOutputStream().close();
            byte[] out = readAll(p.getInputStream());
            if (!p.waitFor(TIMEOUT_MS, TimeUnit.MILLISECONDS)) {
                throw new PlatformException("screenshot_failed", "screencap took longer than " + TIMEOUT_MS + " ms");
            }
            if (p.exitValue() != 0 || out.length == 0) {
                throw new PlatformException("screenshot_failed",
                    "screencap exited " + p.exitValue() + " with " + out.length + " bytes");
            }
            return out;
        } catch (IOException e) {
            throw new PlatformException("screenshot_failed", "reading screencap's output failed: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PlatformException("screenshot_failed", "interrupted while screencap ran");
        } finally {
            p.destroy();
        }
    }

    private static byte[] readAll(InputStream in) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream(1 << 20);
        byte[] buf = new byte[64 * 1024];
        for (int n; (n = in.read(buf)) > 0; ) out.write(buf, 0, n);
        return out.toByteArray();
    }
}
