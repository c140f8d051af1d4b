package dev.mobileagent.agent.core;

import static dev.mobileagent.agent.Support.call;
import static dev.mobileagent.agent.Support.find;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import dev.mobileagent.agent.Support.Client;
import dev.mobileagent.agent.Support.Harness;
import dev.mobileagent.agent.Support.RecordingEvents;
import dev.mobileagent.agent.fake.FakeClock;
import dev.mobileagent.agent.fake.FakeNode;
import dev.mobileagent.agent.fake.FakePlatform;
import dev.mobileagent.agent.fake.FakeWindow;
import dev.mobileagent.agent.fake.Fixtures;
import java.util.List;
import org.json.JSONObject;
import org.junit.Test;

/** Change events: naming the window and the changed nodes, seq from 1 by 1, resync. */
public class EventsTest {
    final FakeClock clock = new FakeClock();

    @Test
    public void editingOneReactNativeFieldEmitsEventsNamingThatFieldOnly() throws Exception {
        FakeWindow form = Fixtures.reactNativeForm();
        FakePlatform p = new FakePlatform().add(form);
        Agent agent = new Agent(p, clock);
        RecordingEvents events = new RecordingEvents();
        agent.setEvents(events);
        JSONObject s = call(agent, clock, "snapshot", "{}");
        int name = find(s, "res", "name").getInt("id");
        call(agent, clock, "text", "{\"node\":" + name + ",\"text\":\"Ada\",\"method\":\"direct\"}");
        List<JSONObject> changed = events.named("window_changed");
        assertEquals(1, changed.size());
        JSONObject data = changed.get(0).getJSONObject("data");
        assertEquals(Fixtures.RN, data.getInt("window"));
        assertEquals("[" + name + "]", data.getJSONArray("nodes").toString());
        assertEquals("[\"text\"]", data.getJSONArray("kinds").toString());
    }

    @Test
    public void aComposeWindowProducesNoWindowChanged() throws Exception {
        FakePlatform p = Fixtures.fixedUi();
        Agent agent = new Agent(p, clock);
        RecordingEvents events = new RecordingEvents();
        agent.setEvents(events);
        int user = find(call(agent, clock, "snapshot", "{}"), "res", "username").getInt("id");
        call(agent, clock, "text", "{\"node\":" + user + ",\"text\":\"x\",\"method\":\"direct\"}");
        assertTrue(events.named("window_changed").isEmpty());
    }

    @Test
    public void aNewWindowIsAnnouncedWithTheWindowsNowPresent() throws Exception {
        FakePlatform p = Fixtures.fixedUi();
        Agent agent = new Agent(p, clock);
        RecordingEvents events = new RecordingEvents();
        agent.setEvents(events);
        p.addAndAnnounce(Fixtures.permissionPrompt());
        JSONObject data = events.named("windows_changed").get(0).getJSONObject("data");
        // the app under the prompt is no longer reported: the prompt's touch region is its whole task
        assertEquals("[1,30]", data.getJSONArray("windows").toString());
    }

    @Test
    public void eventsOnTheConnectionStartAtSeq1AndGrowBy1AndSnapshotsNameTheLastSeq() throws Exception {
        try (Harness h = new Harness(Fixtures.fixedUi())) {
            Client c = h.host();
            c.result("snapshot", "{}");
            FakeNode clockNode = Fixtures.clockOf(h.platform.window(Fixtures.STATUS_BAR));
            h.platform.changeText(clockNode, "12:01");
            h.platform.changeText(clockNode, "12:02");
            JSONObject first = c.next("event", 3000);
            JSONObject second = c.next("event", 3000);
            assertEquals(1, first.getLong("seq"));
            assertEquals(2, second.getLong("seq"));
            assertEquals("window_changed", first.getString("name"));
            assertEquals(Fixtures.STATUS_BAR, first.getJSONObject("data").getInt("window"));
            assertEquals(2, c.result("snapshot", "{}").getLong("seq"));
        }
    }

    @Test
    public void aResyncDropsTheCachesAndTheNextEventCarriesTheNextSeq() throws Exception {
        try (Harness h = new Harness(Fixtures.fixedUi())) {
            Client c = h.host();
            FakeNode clockNode = Fixtures.clockOf(h.platform.window(Fixtures.STATUS_BAR));
            h.platform.changeText(clockNode, "12:01");
            assertEquals(1, c.next("event", 3000).getLong("seq"));
            h.server.loseNextEvent();
            h.platform.changeText(clockNode, "12:02");
            assertEquals("a lost event leaves a gap", 3, c.next("event", 3000).getLong("seq"));
            assertEquals(3, c.result("resync", "{}").getLong("seq"));
            h.platform.changeText(clockNode, "12:03");
            assertEquals(4, c.next("event", 3000).getLong("seq"));
        }
    }

    @Test
    public void aNewConnectionCountsItsEventsFrom1() throws Exception {
        try (Harness h = new Harness(Fixtures.fixedUi())) {
            Client c = h.host();
            FakeNode clockNode = Fixtures.clockOf(h.platform.window(Fixtures.STATUS_BAR));
            h.platform.changeText(clockNode, "12:01");
            assertEquals(1, c.next("event", 3000).getLong("seq"));
            Client d = h.host();
            d.result("snapshot", "{}"); // the welcome is processed
            h.platform.changeText(clockNode, "12:02");
            assertEquals(1, d.next("event", 3000).getLong("seq"));
        }
    }
}
