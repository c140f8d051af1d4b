package dev.mobileagent.agent.input;

import static dev.mobileagent.agent.Support.call;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import dev.mobileagent.agent.core.Agent;
import dev.mobileagent.agent.core.AgentError;
import dev.mobileagent.agent.fake.FakeClock;
import dev.mobileagent.agent.fake.FakeNode;
import dev.mobileagent.agent.fake.FakePlatform;
import dev.mobileagent.agent.fake.FakeWindow;
import dev.mobileagent.agent.fake.Fixtures;
import java.util.List;
import org.json.JSONObject;
import org.junit.Test;

/** Taps, long presses, swipes every 8 ms with the resting release, keys, and refused injection. */
public class InputTest {
    final FakeClock clock = new FakeClock();
    final FakePlatform platform = Fixtures.fixedUi().withClock(clock); // injection costs are paid on the fake clock
    final Agent agent = new Agent(platform, clock);

    FakeNode listOnListTab() throws Exception {
        call(agent, clock, "tap", "{\"x\":540,\"y\":270}");
        FakeWindow app = platform.window(Fixtures.COMPOSE);
        FakeNode page = app.rootNode().children().get(0).children().get(1);
        return page.children().get(0);
    }

    @Test
    public void aSwipeThatRestsBeforeTheLiftMovesTheListAsFarAsThePointer() throws Exception {
        FakeNode list = listOnListTab();
        JSONObject r = call(agent, clock, "swipe", "{\"x1\":540,\"y1\":1800,\"x2\":540,\"y2\":1200,\"duration_ms\":300,\"rest_ms\":60}");
        assertTrue(r.getBoolean("accepted"));
        assertEquals("38 moves along the line and the resting pixel", 39, r.getInt("moves"));
        assertEquals("the list stops where the pointer left it", 601, list.scrolled);
    }

    @Test
    public void aSwipeLiftedMovingFlingsTheListFurtherThanThePointer() throws Exception {
        FakeNode list = listOnListTab();
        JSONObject r = call(agent, clock, "swipe", "{\"x1\":540,\"y1\":1800,\"x2\":540,\"y2\":1200,\"duration_ms\":300}");
        assertEquals(38, r.getInt("moves"));
        assertTrue("flung past the pointer: " + list.scrolled, list.scrolled > 700);
    }

    @Test
    public void aSwipeMovesEvery8MsAlongItsLineThenRestsMovesOnePixelOnAndLifts() {
        List<Gestures.Step> steps = Gestures.swipe(540, 1800, 540, 600, 300, 60);
        assertEquals(Gestures.DOWN, steps.get(0).action);
        assertEquals(0, steps.get(0).atMs);
        for (int i = 1; i <= 37; i++) {
            assertEquals(Gestures.MOVE, steps.get(i).action);
            assertEquals(8L * i, steps.get(i).atMs);
            assertEquals(540, steps.get(i).x);
            assertEquals(Math.round(1800 - 1200 * (8.0 * i / 300)), steps.get(i).y);
        }
        Gestures.Step last = steps.get(38);
        assertEquals(300, last.atMs);
        assertEquals(600, last.y);
        Gestures.Step pixel = steps.get(39);
        assertEquals(Gestures.MOVE, pixel.action);
        assertEquals(360, pixel.atMs);
        assertEquals("one pixel on, upwards like the swipe", 599, pixel.y);
        Gestures.Step up = steps.get(40);
        assertEquals(Gestures.UP, up.action);
        assertEquals(360, up.atMs);
        assertEquals(599, up.y);
        assertEquals(41, steps.size());
    }

    @Test
    public void aSwipeWithoutDurationStillMovesOnce() {
        List<Gestures.Step> steps = Gestures.swipe(100, 100, 300, 100, 0, 0);
        assertEquals(3, steps.size());
        assertEquals(Gestures.MOVE, steps.get(1).action);
        assertEquals(300, steps.get(1).x);
        assertEquals(Gestures.UP, steps.get(2).action);
    }

    @Test
    public void theSwipesEventsAreInjectedOnTime() throws Exception {
        call(agent, clock, "swipe", "{\"x1\":100,\"y1\":2000,\"x2\":900,\"y2\":2000,\"duration_ms\":40,\"rest_ms\":60}");
        List<long[]> t = platform.touches;
        long down = t.get(0)[3];
        long[] expected = {0, 8, 16, 24, 32, 40, 100, 100};
        assertEquals(expected.length, t.size());
        for (int i = 0; i < expected.length; i++) assertEquals("event " + i, expected[i], t.get(i)[4] - down);
        assertEquals("a horizontal swipe's pixel goes right", 901, t.get(7)[1]);
    }

    @Test
    public void aTapIsAcknowledgedAsAcceptedWithin50Ms() throws Exception {
        // an endless animation is running: the tap must not wait for idle
        final FakeWindow bar = platform.window(Fixtures.STATUS_BAR);
        clock.every(16, () -> platform.changeText(Fixtures.clockOf(bar), "tick"));
        long start = clock.nowMs();
        JSONObject r = call(agent, clock, "tap", "{\"x\":540,\"y\":270}");
        assertTrue(r.getBoolean("accepted"));
        assertTrue("acknowledged after " + (clock.nowMs() - start) + " ms", clock.nowMs() - start <= 50);
        assertEquals(2, platform.touches.size());
        assertEquals(Gestures.DOWN, platform.touches.get(0)[0]);
        assertEquals(Gestures.UP, platform.touches.get(1)[0]);
    }

    @Test
    public void aLongPressHoldsTheTouchForItsHold() throws Exception {
        call(agent, clock, "tap", "{\"x\":540,\"y\":970,\"hold_ms\":800}");
        List<long[]> t = platform.touches;
        assertEquals(800, t.get(1)[4] - t.get(0)[4]);
    }

    @Test
    public void aKeyIsInjectedDownThenUp() throws Exception {
        assertTrue(call(agent, clock, "key", "{\"code\":4,\"meta\":0}").getBoolean("accepted"));
        assertEquals(2, platform.keys.size());
        assertEquals(0, platform.keys.get(0)[0]);
        assertEquals(1, platform.keys.get(1)[0]);
        assertEquals(4, platform.keys.get(1)[1]);
    }

    @Test
    public void refusedInjectionIsAnActionableError() throws Exception {
        platform.refuseInjection = true;
        try {
            call(agent, clock, "tap", "{\"x\":1,\"y\":1}");
            fail("a refused tap was accepted");
        } catch (AgentError e) {
            assertEquals("injection_refused", e.code);
            assertTrue(e.getMessage(), e.getMessage().contains("USB debugging (Security settings)"));
            assertTrue("the platform's own words are kept", e.getMessage().contains("INJECT_EVENTS"));
            assertFalse(e.retryable);
        }
    }
}
