package dev.mobileagent.agent.input;

import static dev.mobileagent.agent.Support.call;
import static dev.mobileagent.agent.Support.find;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import dev.mobileagent.agent.core.Agent;
import dev.mobileagent.agent.fake.FakeClock;
import dev.mobileagent.agent.fake.FakeNode;
import dev.mobileagent.agent.fake.FakePlatform;
import dev.mobileagent.agent.fake.Fixtures;
import java.util.concurrent.atomic.AtomicInteger;
import org.json.JSONObject;
import org.junit.Test;

/**
 * Issue 36, item 2: {@code ime_enter} performs AccessibilityAction.ACTION_IME_ENTER, the field's
 * IME action, on a focused editor; a node that does not offer it answers offered false and nothing
 * is done (the host presses ENTER instead).
 */
public class ImeEnterTest {
    final FakeClock clock = new FakeClock();

    @Test
    public void theFocusedFieldsImeActionRuns() throws Exception {
        FakePlatform p = Fixtures.fixedUi();
        AtomicInteger searches = new AtomicInteger();
        FakeNode username = LiveFocusTest.field(p, "username").onImeAction(searches::incrementAndGet);
        Agent agent = new Agent(p, clock);
        call(agent, clock, "tap", "{\"x\":540,\"y\":570}"); // the username takes the focus
        JSONObject r = call(agent, clock, "ime_enter", "{\"node\":null}");
        assertTrue(r.toString(), r.getBoolean("accepted") && r.getBoolean("offered"));
        assertEquals(1, searches.get());
        assertEquals(1, username.imeEnterCalls);
    }

    @Test
    public void aFieldWithoutTheFocusDoesNotOfferItAndNothingRuns() throws Exception {
        FakePlatform p = Fixtures.fixedUi();
        AtomicInteger searches = new AtomicInteger();
        LiveFocusTest.field(p, "pin").onImeAction(searches::incrementAndGet);
        Agent agent = new Agent(p, clock);
        int pin = find(call(agent, clock, "snapshot", "{}"), "res", "pin").getInt("id");
        JSONObject r = call(agent, clock, "ime_enter", "{\"node\":" + pin + "}");
        assertFalse(r.toString(), r.getBoolean("accepted") || r.getBoolean("offered"));
        assertEquals(0, searches.get());
    }
}
