package dev.mobileagent.agent.input;

import static dev.mobileagent.agent.Support.call;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import dev.mobileagent.agent.core.Agent;
import dev.mobileagent.agent.core.AgentError;
import dev.mobileagent.agent.fake.FakeClock;
import dev.mobileagent.agent.fake.FakePlatform;
import dev.mobileagent.agent.fake.Fixtures;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.json.JSONObject;
import org.junit.Test;

/**
 * The gesture method: finger paths to MotionEvents with ACTION_POINTER_DOWN/UP at the pointer's
 * index, pointer ids taken lowest first, the gesture's down time on every event, injected on time.
 */
public class MultiTouchTest {
    final FakeClock clock = new FakeClock();
    final FakePlatform platform = Fixtures.fixedUi().withClock(clock);
    final Agent agent = new Agent(platform, clock);

    static long[][] path(long... xyt) {
        long[][] out = new long[xyt.length / 3][];
        for (int i = 0; i < out.length; i++) out[i] = new long[] {xyt[3 * i], xyt[3 * i + 1], xyt[3 * i + 2]};
        return out;
    }

    static List<String> names(List<MultiTouch.Event> events) {
        List<String> out = new ArrayList<>();
        for (MultiTouch.Event e : events) out.add(e.toString());
        return out;
    }

    @Test
    public void twoFingersGoDownMoveAndLiftAsPointerDownMoveAndPointerUp() {
        List<MultiTouch.Event> events = MultiTouch.events(Arrays.asList(
            path(400, 1000, 0, 350, 950, 16, 300, 900, 32), path(600, 1200, 0, 650, 1250, 16, 700, 1300, 32)));
        assertEquals(Arrays.asList("DOWN@0[0]", "POINTER_DOWN(1)@0[0, 1]", "MOVE@16[0, 1]", "MOVE@32[0, 1]",
            "POINTER_UP(0)@32[0, 1]", "UP@32[1]"), names(events));
        MultiTouch.Event last = events.get(events.size() - 1);
        assertEquals(700, last.xs[0]);
        assertEquals("every event carries the gesture's down time", 0, last.downAtMs);
    }

    @Test
    public void aFingerGoingDownAfterAnotherLiftedTakesTheLowestFreeIdAtItsIndex() {
        List<MultiTouch.Event> events = MultiTouch.events(Arrays.asList(
            path(100, 100, 0, 100, 100, 50), path(500, 500, 10, 500, 500, 200), path(200, 200, 100, 200, 200, 150)));
        assertEquals(Arrays.asList("DOWN@0[0]", "POINTER_DOWN(1)@10[0, 1]", "POINTER_UP(0)@50[0, 1]",
            "POINTER_DOWN(0)@100[0, 1]", "POINTER_UP(0)@150[0, 1]", "UP@200[1]"), names(events));
    }

    @Test
    public void aDoubleTapIsTwoGesturesEachWithItsOwnDownTime() {
        List<MultiTouch.Event> events = MultiTouch.events(Arrays.asList(
            path(540, 900, 0, 540, 900, 50), path(540, 900, 150, 540, 900, 200)));
        assertEquals(Arrays.asList("DOWN@0[0]", "UP@50[0]", "DOWN@150[0]", "UP@200[0]"), names(events));
        assertEquals(150, events.get(3).downAtMs);
    }

    @Test
    public void theGestureMethodInjectsEveryEventOnTimeAndSaysHowMany() throws Exception {
        long start = clock.nowMs();
        JSONObject r = call(agent, clock, "gesture",
            "{\"paths\":[[[400,1000,0],[300,900,100],[300,900,160]],[[600,1200,0],[700,1300,100],[700,1300,160]]]}");
        assertTrue(r.getBoolean("accepted"));
        assertEquals(5, r.getInt("events"));
        assertEquals(5, platform.motions.size());
        long[] pointerDown = platform.motions.get(1);
        assertEquals("ACTION_POINTER_DOWN of index 1", 5 | (1 << 8), pointerDown[0]);
        assertEquals("two pointers, ids 0 and 1", 9, pointerDown.length);
        assertEquals(1, pointerDown[6]);
        long[] up = platform.motions.get(4);
        assertEquals(1, up[0]);
        assertEquals("the lift at the path's last time", start + 160, up[2]);
        assertEquals("its down time the gesture's", start, up[1]);
    }

    @Test
    public void badPathsAreInvalidParamsAndInjectNothing() throws Exception {
        String[] bad = {"{}", "{\"paths\":[]}", "{\"paths\":[[[1,1,0]]]}", "{\"paths\":[[[1,1,5],[1,1,5]]]}",
            "{\"paths\":[[[1,1,10],[1,1,5],[1,1,20]]]}", "{\"paths\":[[[-1,1,0],[1,1,5]]]}",
            "{\"paths\":[[[1,1,0],[1,1,60001]]]}", "{\"paths\":[[[1,1,0],[1,\"a\",5]]]}", elevenFingers()};
        for (String params : bad) {
            try {
                call(agent, clock, "gesture", params);
                fail("accepted " + params);
            } catch (AgentError e) {
                assertEquals(params, "invalid_params", e.code);
            }
        }
        assertEquals(0, platform.motions.size());
    }

    static String elevenFingers() {
        StringBuilder b = new StringBuilder("{\"paths\":[");
        for (int i = 0; i < 11; i++) b.append(i == 0 ? "" : ",").append("[[").append(10 * i).append(",1,0],[1,1,5]]");
        return b.append("]}").toString();
    }
}
