package dev.mobileagent.agent.core;

import static dev.mobileagent.agent.Support.call;
import static dev.mobileagent.agent.Support.find;
import static org.junit.Assert.assertEquals;

import dev.mobileagent.agent.fake.FakeClock;
import dev.mobileagent.agent.fake.FakeNode;
import dev.mobileagent.agent.fake.FakePlatform;
import dev.mobileagent.agent.fake.Fixtures;
import dev.mobileagent.agent.input.TextTest;
import org.json.JSONArray;
import org.json.JSONObject;
import org.junit.Test;

/** Bounds probes: the live bounds of known nodes, unknown and gone ones left out, no idle wait. */
public class BoundsTest {
    final FakeClock clock = new FakeClock();
    final FakePlatform platform = Fixtures.fixedUi();
    final Agent agent = new Agent(platform, clock);

    @Test
    public void aProbeAnswersTheCurrentBoundsOfEachKnownNode() throws Exception {
        JSONObject s = call(agent, clock, "snapshot", "{}");
        int user = find(s, "res", "username").getInt("id");
        FakeNode node = TextTest.field(platform.window(Fixtures.COMPOSE), "username");
        node.a.bounds = new int[] {60, 400, 1020, 540};
        long before = clock.nowMs();
        JSONArray nodes = call(agent, clock, "bounds", "{\"ids\":[" + user + ",99999]}").getJSONArray("nodes");
        assertEquals("no idle wait", before, clock.nowMs());
        assertEquals(1, nodes.length());
        assertEquals(user, nodes.getJSONObject(0).getInt("id"));
        assertEquals("[60,400,1020,540]", nodes.getJSONObject(0).getJSONArray("bounds").toString());
    }

    @Test
    public void aNodeOfATornDownScreenIsLeftOut() throws Exception {
        int user = find(call(agent, clock, "snapshot", "{}"), "res", "username").getInt("id");
        call(agent, clock, "tap", "{\"x\":900,\"y\":270}");
        assertEquals(0, call(agent, clock, "bounds", "{\"ids\":[" + user + "]}").getJSONArray("nodes").length());
    }
}
