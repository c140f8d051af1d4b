package dev.mobileagent.agent.android;

import dev.mobileagent.agent.platform.PlatformException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The display as a PNG from the platform's screencap tool (frameworks/base cmds/screencap,
 * {@code screencap -p}: PNG on standard output), which the shell user may run: the agent's
 * fallback when UiAutomation's screenshot cannot be read back. {@code -d ID} names display 0's
 * physical id (Android 10+, "the physical display ID to capture"; without it screencap takes its
 * default, which the review reports as the first display found: on a foldable or a device with
 * another display not always the default one), as Appium's UiAutomator2 server does.
 * Its output is read on a thread of its own under the time bound, so a screencap that hangs is
 * destroyed at the bound rather than holding the worker.
 */
final class Screencap {
    static final String BINARY = "/system/bin/screencap";
    static final long TIMEOUT_MS = 10_000;

    private Screencap() {}

    /** screencap's command line for display 0, whose physical id is {@code physicalId} (null: unknown). */
    static String[] command(Long physicalId) {
        List<String> c = new ArrayList<>();
        c.add(BINARY);
        c.add("-p");
        if (physicalId != null) {
            c.add("-d");
            c.add(Long.toString(physicalId));
        }
        return c.toArray(new String[0]);
    }

    /** The PNG bytes {@code command} writes within {@code timeoutMs}, or screenshot_failed. */
    static byte[] png(long timeoutMs, String... command) throws PlatformException {
        final Process p;
        try {
            p = new ProcessBuilder(command).redirectErrorStream(false).start();
        } catch (IOException e) {
            throw new PlatformException("screenshot_failed", "cannot run screencap: " + e.getMessage());
        }
        FutureTask<byte[]> reading = new FutureTask<>(() -> {
            byte[] out = readAll(p.getInputStream());
            int status = p.waitFor();
            if (status != 0 || out.length == 0) {
                throw new PlatformException("screenshot_failed", "screencap exited " + status + " with " + out.length + " bytes");
            }
            return out;
        });
        Thread reader = new Thread(reading, "mobile-agent-screencap");
        reader.setDaemon(true);
        try {
            p.getOutputStream().close();
            reader.start();
            return reading.get(timeoutMs, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new PlatformException("screenshot_failed", "screencap took longer than " + timeoutMs + " ms");
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof PlatformException) throw (PlatformException) cause;
            throw new PlatformException("screenshot_failed", "reading screencap's output failed: " + cause);
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
