package dev.mobileagent.agent.server;

import static dev.mobileagent.agent.Support.find;
import static dev.mobileagent.agent.Support.window;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;

import dev.mobileagent.agent.Support.Client;
import dev.mobileagent.agent.Support.Harness;
import dev.mobileagent.agent.fake.Fixtures;
import org.json.JSONObject;
import org.junit.Test;

/** The same agent across the app's force-stop and relaunch. */
public class LifecycleTest {
    @Test
    public void theSameAgentServesSnapshotsAfterTheAppIsForceStoppedAndRelaunched() throws Exception {
        try (Harness h = new Harness(Fixtures.fixedUi())) {
            Client c = h.host();
            int before = find(c.result("snapshot", "{}"), "res", "username").getInt("id");
            h.platform.forceStop(Fixtures.APP);
            JSONObject gone = c.next("event", 3000);
            assertEquals("windows_changed", gone.getString("name"));
            assertEquals("[1]", gone.getJSONObject("data").getJSONArray("windows").toString());
            JSONObject stopped = c.result("snapshot", "{}");
            assertNull(window(stopped, Fixtures.COMPOSE));
            JSONObject probe = c.result("bounds", "{\"ids\":[" + before + "]}");
            assertEquals("a node of the stopped app is no longer known", 0, probe.getJSONArray("nodes").length());
            h.platform.addAndAnnounce(Fixtures.composeApp());
            assertEquals("windows_changed", c.next("event", 3000).getString("name"));
            JSONObject relaunched = c.result("snapshot", "{\"idle_timeout_ms\":500}");
            assertNotNull(find(relaunched, "res", "username"));
            assertNotNull(window(relaunched, Fixtures.COMPOSE));
            assertEquals("the agent that served before serves after", 4242, h.config.pid);
        }
    }
}
