package dev.mobileagent.agent.server;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import dev.mobileagent.agent.Support.Client;
import dev.mobileagent.agent.Support.Harness;
import dev.mobileagent.agent.fake.Fixtures;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.json.JSONObject;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;

/**
 * Nothing escapes a thread of the agent: on Android RuntimeInit installs KillApplicationHandler as
 * the default uncaught-exception handler (core/java/com/android/internal/os/RuntimeInit.java,
 * commonInit; its uncaughtException ends in Process.killProcess and System.exit(10)), so a
 * throwable that escapes any thread ends the agent. A request that throws anything at all is
 * answered with an error code, and the agent serves on. The handler here plays RuntimeInit's: it
 * records what would have killed the process.
 */
public class NothingEscapesTest {
    final List<Throwable> escaped = Collections.synchronizedList(new ArrayList<Throwable>());
    Thread.UncaughtExceptionHandler before;

    @Before
    public void playRuntimeInit() {
        before = Thread.getDefaultUncaughtExceptionHandler();
        Thread.setDefaultUncaughtExceptionHandler((t, e) -> escaped.add(e));
    }

    @After
    public void restore() {
        Thread.setDefaultUncaughtExceptionHandler(before);
    }

    @Test
    public void aScreenshotThatRunsOutOfMemoryIsAnsweredAndTheAgentServesOn() throws Exception {
        try (Harness h = new Harness(Fixtures.fixedUi())) {
            Client c = h.host();
            h.platform.screenshotThrows = new OutOfMemoryError("Failed to allocate a 10368016 byte allocation");
            JSONObject r = c.request("screenshot", "{}");
            assertEquals("internal", r.getJSONObject("error").getString("code"));
            assertTrue(r.getJSONObject("error").getString("message").contains("OutOfMemoryError"));
            h.platform.screenshotThrows = null;
            assertTrue("served on", c.request("screenshot", "{}").has("result"));
            assertTrue("nothing reached the default handler: " + escaped, escaped.isEmpty());
        }
    }

    @Test
    public void anErrorOfAMissingApiInARequestIsAnsweredAndTheAgentServesOn() throws Exception {
        try (Harness h = new Harness(Fixtures.fixedUi())) {
            Client c = h.host();
            h.platform.windowsThrow = new NoSuchMethodError("android.view.accessibility.AccessibilityWindowInfo.getTitle");
            assertEquals("internal", c.request("snapshot", "{}").getJSONObject("error").getString("code"));
            h.platform.windowsThrow = new StackOverflowError();
            assertEquals("internal", c.request("snapshot", "{}").getJSONObject("error").getString("code"));
            h.platform.windowsThrow = null;
            assertTrue(c.request("snapshot", "{}").has("result"));
            assertTrue("nothing reached the default handler: " + escaped, escaped.isEmpty());
        }
    }

    @Test
    public void anErrorInAnEventIsLoggedAndEventsGoOn() throws Exception {
        try (Harness h = new Harness(Fixtures.fixedUi())) {
            Client c = h.host();
            h.platform.windowsThrow = new OutOfMemoryError();
            h.platform.addAndAnnounce(Fixtures.reactNativeForm()); // windows_changed lists the windows: it throws
            h.platform.windowsThrow = null;
            h.platform.changeText(Fixtures.clockOf(h.platform.window(Fixtures.STATUS_BAR)), "12:34");
            JSONObject event = c.next("event", 3000);
            assertEquals("window_changed", event.getString("name"));
            assertTrue("nothing reached the default handler: " + escaped, escaped.isEmpty());
        }
    }
}
