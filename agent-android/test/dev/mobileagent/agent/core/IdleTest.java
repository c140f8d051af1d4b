package dev.mobileagent.agent.core;

import static dev.mobileagent.agent.Support.call;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import dev.mobileagent.agent.fake.FakeClock;
import dev.mobileagent.agent.fake.FakePlatform;
import dev.mobileagent.agent.fake.FakeWindow;
import dev.mobileagent.agent.fake.Fixtures;
import org.json.JSONObject;
import org.junit.Test;

/** The bounded idle wait, on a fake clock: 500 ms at most, ending 200 ms after the last event or action. */
public class IdleTest {
    final FakeClock clock = new FakeClock();
    final FakePlatform platform = Fixtures.fixedUi();
    final Agent agent = new Agent(platform, clock);

    /** An animation that never ends: the status bar changes every frame (16 ms). */
    void animateForever() {
        final FakeWindow bar = platform.window(Fixtures.STATUS_BAR);
        final int[] frame = {0};
        clock.every(16, () -> platform.changeText(Fixtures.clockOf(bar), "frame " + (++frame[0])));
    }

    @Test
    public void aSnapshotDuringAnEndlessAnimationReturnsWithinTheDefaultBoundPlusReadTime() throws Exception {
        animateForever();
        clock.advance(100); // the animation is running when the snapshot comes
        long start = clock.nowMs();
        JSONObject s = call(agent, clock, "snapshot", "{\"idle_timeout_ms\":500,\"idle_quiet_ms\":200}");
        long took = clock.nowMs() - start;
        JSONObject idle = s.getJSONObject("idle");
        assertFalse("the screen never went quiet", idle.getBoolean("idle"));
        assertEquals(500, idle.getLong("waited_ms"));
        assertTrue("returned within the bound plus the read: " + took, took <= 500 + 16);
        assertTrue(s.getInt("node_count") > 0);
    }

    @Test
    public void theWaitEnds200MsAfterTheAgentsOwnAction() throws Exception {
        call(agent, clock, "tap", "{\"x\":5,\"y\":2000}");
        clock.advance(50);
        JSONObject idle = call(agent, clock, "snapshot", "{\"idle_timeout_ms\":500}").getJSONObject("idle");
        assertTrue(idle.getBoolean("idle"));
        assertEquals(150, idle.getLong("waited_ms"));
    }

    @Test
    public void theWaitEnds200MsAfterTheLastEvent() throws Exception {
        final FakeWindow bar = platform.window(Fixtures.STATUS_BAR);
        platform.changeText(Fixtures.clockOf(bar), "12:01");
        clock.advance(120);
        platform.changeText(Fixtures.clockOf(bar), "12:02");
        JSONObject idle = call(agent, clock, "snapshot", "{\"idle_timeout_ms\":500}").getJSONObject("idle");
        assertTrue(idle.getBoolean("idle"));
        assertEquals(200, idle.getLong("waited_ms"));
    }

    @Test
    public void aQuietScreenAndTheDefaultTimeoutDoNotWait() throws Exception {
        animateForever();
        JSONObject idle = call(agent, clock, "snapshot", "{}").getJSONObject("idle");
        assertEquals(0, idle.getLong("waited_ms"));
    }

    @Test
    public void theWaitNeverOutlivesTheRequestsDeadline() throws Exception {
        IdleTracker t = new IdleTracker(clock);
        t.noteActivity();
        IdleTracker.Result r = t.await(500, 200, new Deadline(clock, 80));
        assertFalse(r.idle);
        assertEquals(80, r.waitedMs);
    }
}
