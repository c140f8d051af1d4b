package dev.mobileagent.agent.core;

import static dev.mobileagent.agent.Support.call;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import dev.mobileagent.agent.fake.FakeClock;
import dev.mobileagent.agent.fake.FakePlatform;
import dev.mobileagent.agent.fake.Fixtures;
import org.json.JSONObject;
import org.junit.Test;

/** clipboard_get and clipboard_set: the primary clip as text, set unseen (no clipboard overlay). */
public class ClipboardTest {
    final FakeClock clock = new FakeClock();

    @Test
    public void theClipIsSetWithoutAnOverlayReadBackAndCleared() throws Exception {
        FakePlatform p = Fixtures.fixedUi();
        Agent agent = new Agent(p, clock);
        assertTrue(call(agent, clock, "clipboard_get", "{}").isNull("text"));
        call(agent, clock, "clipboard_set", "{\"text\":\"héllo 👋\"}");
        assertEquals("héllo 👋", call(agent, clock, "clipboard_get", "{}").getString("text"));
        assertEquals("no clipboard overlay for a clip the agent set", 0, p.clipboardOverlays);
        call(agent, clock, "clipboard_set", "{\"text\":null}");
        assertTrue(call(agent, clock, "clipboard_get", "{}").isNull("text"));
    }

    @Test
    public void aClipTheShellMayNotReadIsAnErrorNotAnEmptyClipboard() throws Exception {
        FakePlatform p = Fixtures.fixedUi();
        p.setUnreadableClipboardForTest("a password manager's clip");
        Agent agent = new Agent(p, clock);
        try {
            call(agent, clock, "clipboard_get", "{}");
            fail("an unreadable clip read as text");
        } catch (AgentError e) {
            assertEquals("internal", e.code);
            assertTrue(e.getMessage(), e.getMessage().contains("may not read"));
        }
    }

    @Test
    public void aTextThatIsNoStringIsInvalidParams() throws Exception {
        Agent agent = new Agent(Fixtures.fixedUi(), clock);
        try {
            call(agent, clock, "clipboard_set", "{\"text\":5}");
            fail("a number set as the clip");
        } catch (AgentError e) {
            assertEquals("invalid_params", e.code);
        }
        JSONObject empty = call(agent, clock, "clipboard_get", "{}");
        assertTrue(empty.isNull("text"));
    }
}
