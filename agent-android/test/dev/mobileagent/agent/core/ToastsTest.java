package dev.mobileagent.agent.core;

import static dev.mobileagent.agent.Support.call;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import dev.mobileagent.agent.Support.Client;
import dev.mobileagent.agent.Support.Harness;
import dev.mobileagent.agent.fake.FakeClock;
import dev.mobileagent.agent.fake.FakePlatform;
import dev.mobileagent.agent.fake.Fixtures;
import org.json.JSONArray;
import org.json.JSONObject;
import org.junit.Test;

/** Toasts (docs/protocol.md, toasts): buffered from their accessibility events with their times. */
public class ToastsTest {
    final FakeClock clock = new FakeClock();

    @Test
    public void aToastIsBufferedWithItsTextPackageClassAndAgeAndAskedForAfterTheLastSeen() throws Exception {
        FakePlatform p = Fixtures.fixedUi().withClock(clock);
        Agent agent = new Agent(p, clock);
        assertEquals("{\"toasts\":[],\"last\":0}", call(agent, clock, "toasts", "{}").toString());
        p.showToast("dev.mobileagent.fixture", "Continuing as guest");
        clock.advance(250);
        p.showToast("dev.mobileagent.fixture", "Saved");
        clock.advance(40);
        JSONObject all = call(agent, clock, "toasts", "{}");
        JSONArray toasts = all.getJSONArray("toasts");
        assertEquals(2, toasts.length());
        JSONObject first = toasts.getJSONObject(0);
        assertEquals(1, first.getLong("id"));
        assertEquals("Continuing as guest", first.getString("text"));
        assertEquals("dev.mobileagent.fixture", first.getString("package"));
        assertEquals("android.widget.Toast", first.getString("class"));
        assertEquals(290, first.getLong("age_ms"));
        assertEquals(40, toasts.getJSONObject(1).getLong("age_ms"));
        assertEquals(2, all.getLong("last"));
        JSONArray after = call(agent, clock, "toasts", "{\"after\":1}").getJSONArray("toasts");
        assertEquals(1, after.length());
        assertEquals("Saved", after.getJSONObject(0).getString("text"));
    }

    @Test
    public void theBufferKeepsTheLatestToastsAndIdsGoOn() throws Exception {
        FakePlatform p = Fixtures.fixedUi().withClock(clock);
        Agent agent = new Agent(p, clock);
        for (int i = 1; i <= Toasts.CAPACITY + 6; i++) p.showToast("dev.mobileagent.fixture", "toast " + i);
        JSONObject all = call(agent, clock, "toasts", "{}");
        JSONArray toasts = all.getJSONArray("toasts");
        assertEquals(Toasts.CAPACITY, toasts.length());
        assertEquals(7, toasts.getJSONObject(0).getLong("id"));
        assertEquals("toast 7", toasts.getJSONObject(0).getString("text"));
        assertEquals(Toasts.CAPACITY + 6, all.getLong("last"));
    }

    @Test
    public void aBadAfterIsInvalidParams() throws Exception {
        Agent agent = new Agent(Fixtures.fixedUi().withClock(clock), clock);
        try {
            call(agent, clock, "toasts", "{\"after\":-1}");
            throw new AssertionError("accepted a negative after");
        } catch (dev.mobileagent.agent.core.AgentError e) {
            assertEquals("invalid_params", e.code);
        }
    }

    @Test
    public void theToastRoundTripsOverTheProtocol() throws Exception {
        try (Harness h = new Harness(Fixtures.fixedUi())) {
            Client c = h.host();
            h.platform.showToast("dev.mobileagent.fixture", "Saved");
            JSONObject r = c.result("toasts", "{\"after\":0}");
            assertEquals("Saved", r.getJSONArray("toasts").getJSONObject(0).getString("text"));
            assertTrue(r.getJSONArray("toasts").getJSONObject(0).getLong("age_ms") >= 0);
        }
    }
}
