package dev.mobileagent.agent.tree;

import static dev.mobileagent.agent.Support.call;
import static dev.mobileagent.agent.Support.find;
import static dev.mobileagent.agent.Support.window;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import dev.mobileagent.agent.Support.Client;
import dev.mobileagent.agent.Support.Harness;
import dev.mobileagent.agent.Support.RecordingEvents;
import dev.mobileagent.agent.Support;
import dev.mobileagent.agent.core.Agent;
import dev.mobileagent.agent.fake.FakeClock;
import dev.mobileagent.agent.fake.FakeNode;
import dev.mobileagent.agent.fake.FakePlatform;
import dev.mobileagent.agent.fake.FakeWindow;
import dev.mobileagent.agent.fake.Fixtures;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.json.JSONObject;
import org.junit.Test;

/** A Compose screen torn down under the agent's read, and a snapshot that does not wait for a slow read. */
public class TeardownTest {
    @Test
    public void aSnapshotAskedForDuringAComposeRereadIsAnsweredWithoutWaitingForIt() throws Exception {
        try (Harness h = new Harness(Fixtures.fixedUi())) {
            final CountDownLatch stuck = new CountDownLatch(1);
            final CountDownLatch release = new CountDownLatch(1);
            final Thread[] slowReader = new Thread[1];
            FakeWindow app = h.platform.window(Fixtures.COMPOSE);
            app.setHook((w, parent, index) -> {
                if (slowReader[0] == null) slowReader[0] = Thread.currentThread();
                if (Thread.currentThread() != slowReader[0]) return;
                stuck.countDown();
                try {
                    release.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            Client first = h.host();
            first.send(Support.o("type", "request", "id", 100, "method", "snapshot", "deadline_ms", 10000,
                "params", Support.obj("{\"evict_event_less\":true}")));
            assertTrue("the first read is stuck inside the Compose window", stuck.await(3, TimeUnit.SECONDS));
            JSONObject second = first.request("snapshot", "{}");
            assertEquals(1, second.getLong("id"));
            JSONObject result = second.getJSONObject("result");
            assertNotNull("answered while the other read still runs", find(result, "res", "username"));
            assertEquals(1, release.getCount());
            release.countDown();
            JSONObject late = first.next("response", 5000);
            assertEquals(100, late.getLong("id"));
            assertNotNull(find(late.getJSONObject("result"), "res", "username"));
        }
    }

    @Test
    public void aComposeRereadThatMeetsATornDownSubtreeReadsTheNewScreenAndReportsTheChange() throws Exception {
        FakeClock clock = new FakeClock();
        FakePlatform p = Fixtures.fixedUi();
        Agent agent = new Agent(p, clock);
        RecordingEvents events = new RecordingEvents();
        agent.setEvents(events);
        call(agent, clock, "snapshot", "{}");
        final FakeWindow app = p.window(Fixtures.COMPOSE);
        final FakeNode bigTab = app.rootNode().children().get(0).children().get(0).children().get(2);
        app.setHook((w, parent, index) -> {
            // the reader holds a node of the Login screen and is about to read its children
            if ("login_page".equals(parent.a.res)) {
                w.setHook(null);
                bigTab.click(); // the app switches to the Big tab under the read

            }
        });
        JSONObject s = call(agent, clock, "snapshot", "{\"evict\":[12]}");
        assertNull("the old screen is not served", find(s, "res", "username"));
        assertNotNull("the new screen is read", find(s, "text", "Cell 499"));
        assertEquals(573, window(s, Fixtures.COMPOSE).getInt("node_count"));
        JSONObject changed = events.named("window_changed").get(0).getJSONObject("data");
        assertEquals(Fixtures.COMPOSE, changed.getInt("window"));
        assertEquals("[\"structure\"]", changed.getJSONArray("kinds").toString());
        assertEquals("[]", changed.getJSONArray("nodes").toString());
    }
}
