package dev.mobileagent.agent.core;

import static dev.mobileagent.agent.Support.call;
import static dev.mobileagent.agent.Support.find;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import dev.mobileagent.agent.fake.FakeClock;
import dev.mobileagent.agent.fake.FakePlatform;
import dev.mobileagent.agent.fake.Fixtures;
import dev.mobileagent.agent.input.TextTest;
import org.json.JSONArray;
import org.json.JSONObject;
import org.junit.Test;

/**
 * Issue 37, item 1 and H3: ClipboardService clears the clipboard on a read by root naming
 * com.android.shell, and reads nothing while the device is locked (FakePlatform plays both). The
 * agent never reads then: clipboard_get answers clipboard_unavailable, a paste skips its save and
 * restore. Item 2: the access toast the agent's reads cause is marked by_agent.
 */
public class ClipboardReadRefusalTest {
    final FakeClock clock = new FakeClock();

    @Test
    public void underRootClipboardGetIsRefusedAndTheUsersClipSurvives() throws Exception {
        FakePlatform p = Fixtures.fixedUi();
        p.setClipboardForTest("the user's clip");
        p.agentUid = 0;
        Agent agent = new Agent(p, clock);
        try {
            call(agent, clock, "clipboard_get", "{}");
            fail("read as root");
        } catch (AgentError e) {
            assertEquals("clipboard_unavailable", e.code);
            assertTrue(e.getMessage(), e.getMessage().contains("root"));
        }
        assertEquals("the read as root would have cleared it", "the user's clip", p.clipboardText());
    }

    @Test
    public void underRootClipboardSetThenGetIsAnErrorNotNothing() throws Exception {
        FakePlatform p = Fixtures.fixedUi();
        p.agentUid = 0;
        Agent agent = new Agent(p, clock);
        call(agent, clock, "clipboard_set", "{\"text\":\"abc\"}");
        try {
            call(agent, clock, "clipboard_get", "{}");
            fail("read as root");
        } catch (AgentError e) {
            assertEquals("clipboard_unavailable", e.code);
        }
        assertEquals("abc", p.clipboardText());
    }

    @Test
    public void aPasteUnderRootSkipsTheSaveThatWouldClearTheClip() throws Exception {
        FakePlatform p = TextTest.pinRefusingThePasteAction(false);
        p.agentUid = 0;
        JSONObject r = new TextTest().pasteIntoPin(p);
        assertTrue(r.toString(), r.getBoolean("accepted"));
        assertEquals("日本", TextTest.field(p.window(Fixtures.COMPOSE), "pin").currentText());
        assertEquals("nothing restored over it: the paste's clip stays", "日本", p.clipboardText());
    }

    @Test
    public void whileLockedClipboardGetIsRefusedAndAPasteLeavesTheUsersClip() throws Exception {
        FakePlatform p = TextTest.pinRefusingThePasteAction(false);
        p.setDeviceLocked(true);
        Agent agent = new Agent(p, clock);
        try {
            call(agent, clock, "clipboard_get", "{}");
            fail("read while locked");
        } catch (AgentError e) {
            assertEquals("clipboard_unavailable", e.code);
            assertTrue(e.getMessage(), e.getMessage().contains("locked"));
        }
        int pin = find(call(agent, clock, "snapshot", "{}"), "res", "pin").getInt("id");
        call(agent, clock, "text", "{\"node\":" + pin + ",\"text\":\"日本\",\"method\":\"clipboard\"}");
        assertFalse("not cleared by a restore of the empty clipboard the locked read saw", p.clipboardText() == null);
    }

    @Test
    public void theAccessToastsOfAPasteAreMarkedAsTheAgentsAndAnAppsToastIsNot() throws Exception {
        FakePlatform p = TextTest.pinRefusingThePasteAction(false).withClock(clock);
        Agent agent = new Agent(p, clock);
        int pin = find(call(agent, clock, "snapshot", "{}"), "res", "pin").getInt("id");
        call(agent, clock, "text", "{\"node\":" + pin + ",\"text\":\"日本\",\"method\":\"clipboard\"}");
        p.showToast(Fixtures.APP, "Invalid email");
        JSONArray toasts = call(agent, clock, "toasts", "{}").getJSONArray("toasts");
        assertEquals(toasts.toString(), 3, toasts.length());
        assertEquals("Shell pasted from your clipboard", toasts.getJSONObject(0).getString("text"));
        assertEquals("android", toasts.getJSONObject(0).getString("package"));
        assertTrue(toasts.getJSONObject(0).getBoolean("by_agent"));
        assertEquals("Compose fixture pasted from your clipboard", toasts.getJSONObject(1).getString("text"));
        assertTrue(toasts.getJSONObject(1).getBoolean("by_agent"));
        assertEquals("Invalid email", toasts.getJSONObject(2).getString("text"));
        assertFalse(toasts.getJSONObject(2).getBoolean("by_agent"));
    }

    @Test
    public void withAccessNotificationsOffNoToastShows() throws Exception {
        FakePlatform p = Fixtures.fixedUi().withClock(clock);
        p.setClipboardForTest("the user's clip");
        p.showAccessNotifications = false;
        Agent agent = new Agent(p, clock);
        assertEquals("the user's clip", call(agent, clock, "clipboard_get", "{}").getString("text"));
        assertEquals(0, call(agent, clock, "toasts", "{}").getJSONArray("toasts").length());
    }

    @Test
    public void aSystemToastLongAfterTheReadIsNotTheAgents() throws Exception {
        FakePlatform p = Fixtures.fixedUi().withClock(clock);
        Agent agent = new Agent(p, clock);
        call(agent, clock, "clipboard_get", "{}"); // an empty clipboard: no toast comes
        clock.advance(dev.mobileagent.agent.core.Toasts.EXPECT_MS + 1);
        p.showToast("android", "Storage space running out");
        JSONArray toasts = call(agent, clock, "toasts", "{}").getJSONArray("toasts");
        assertFalse(toasts.getJSONObject(0).getBoolean("by_agent"));
    }

    /** H2: clipboard_get waits for a paste in flight, so it never reads the paste's own clip. */
    @Test
    public void clipboardGetDuringAPasteWaitsAndReadsTheUsersClip() throws Exception {
        FakePlatform p = Fixtures.fixedUi();
        p.setClipboardForTest("the user's clip");
        Agent agent = new Agent(p, clock);
        int pin = find(call(agent, clock, "snapshot", "{}"), "res", "pin").getInt("id");
        final String[] read = new String[1];
        final Thread[] reader = new Thread[1];
        final boolean[] doneDuringPaste = new boolean[1];
        p.onClipSet = () -> {
            if (reader[0] != null) return;
            reader[0] = new Thread(() -> {
                try {
                    read[0] = call(agent, clock, "clipboard_get", "{}").optString("text", null);
                } catch (Exception e) {
                    read[0] = "failed: " + e;
                }
            });
            reader[0].start();
            try {
                reader[0].join(300);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            doneDuringPaste[0] = !reader[0].isAlive();
        };
        call(agent, clock, "text", "{\"node\":" + pin + ",\"text\":\"日本\",\"method\":\"clipboard\"}");
        p.onClipSet = null;
        reader[0].join(5000);
        assertFalse("clipboard_get ran during the paste", doneDuringPaste[0]);
        assertEquals("the user's clip", read[0]);
    }
}
