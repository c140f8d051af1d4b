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
import org.json.JSONObject;
import org.junit.Test;

/**
 * Issue 37, item 3: focus is decided live. A key stroke or KEYCODE_PASTE goes out only while the
 * platform's input focus (UiAutomation.findFocus(FOCUS_INPUT)) is the target; otherwise the text
 * answers accepted false with the reason and injects nothing more.
 */
public class LiveFocusTest {
    final FakeClock clock = new FakeClock();

    static FakeNode field(FakePlatform p, String res) {
        return TextTest.field(p.window(Fixtures.COMPOSE), res);
    }

    /** A form's delayed requestFocus takes the focus from the PIN to the username as soon as the PIN gets it. */
    @Test
    public void keysForAFieldWhoseFocusWasTakenAreRefusedAndNothingIsTyped() throws Exception {
        FakePlatform p = Fixtures.fixedUi();
        field(p, "pin").focusTakenBy(field(p, "username"));
        Agent agent = new Agent(p, clock);
        int pin = find(call(agent, clock, "snapshot", "{}"), "res", "pin").getInt("id");
        int keysBefore = p.keys.size();
        JSONObject r = call(agent, clock, "text", "{\"node\":" + pin + ",\"text\":\"abc\",\"method\":\"keys\"}");
        assertFalse(r.toString(), r.getBoolean("accepted"));
        assertTrue(r.toString(), r.getString("reason").contains("input focus moved"));
        assertEquals("nothing typed into the other field", null, field(p, "username").currentText());
        assertEquals(null, field(p, "pin").currentText());
        assertEquals("no key injected", keysBefore, p.keys.size());
    }

    /** An auto-advancing OTP box moves the focus on after its character: the rest is not typed elsewhere. */
    @Test
    public void keysStopWhenTheFocusAdvancesToAnotherField() throws Exception {
        FakePlatform p = Fixtures.fixedUi();
        field(p, "pin").advancesTo(field(p, "username"));
        Agent agent = new Agent(p, clock);
        int pin = find(call(agent, clock, "snapshot", "{}"), "res", "pin").getInt("id");
        JSONObject r = call(agent, clock, "text", "{\"node\":" + pin + ",\"text\":\"123\",\"method\":\"keys\"}");
        assertFalse(r.toString(), r.getBoolean("accepted"));
        assertEquals("1", field(p, "pin").currentText());
        assertEquals("not '23' in the next box", null, field(p, "username").currentText());
    }

    /** A paste key for a field whose focus was taken is not injected, and the user's clip is put back. */
    @Test
    public void aPasteKeyForAFieldWhoseFocusWasTakenIsNotInjected() throws Exception {
        FakePlatform p = TextTest.pinRefusingThePasteAction(false);
        field(p, "pin").focusTakenBy(field(p, "username"));
        Agent agent = new Agent(p, clock);
        int pin = find(call(agent, clock, "snapshot", "{}"), "res", "pin").getInt("id");
        JSONObject r = call(agent, clock, "text", "{\"node\":" + pin + ",\"text\":\"日本\",\"method\":\"clipboard\"}");
        assertFalse(r.getBoolean("accepted"));
        assertTrue(r.toString(), r.has("reason"));
        assertEquals(null, field(p, "username").currentText());
        assertEquals("no KEYCODE_PASTE", 0, p.keys.size());
        assertEquals("the user's clip", p.clipboardText());
    }

    /** A focus the snapshot saw on the PIN but that moved since: the agent focuses the PIN again, live. */
    @Test
    public void aFocusThatMovedSinceTheSnapshotIsGivenBackBeforeTyping() throws Exception {
        FakePlatform p = Fixtures.fixedUi();
        Agent agent = new Agent(p, clock);
        call(agent, clock, "tap", "{\"x\":540,\"y\":770}");
        int pin = find(call(agent, clock, "snapshot", "{}"), "res", "pin").getInt("id");
        call(agent, clock, "tap", "{\"x\":540,\"y\":570}"); // the focus moves to the username
        JSONObject r = call(agent, clock, "text", "{\"node\":" + pin + ",\"text\":\"12\",\"method\":\"keys\"}");
        assertTrue(r.toString(), r.getBoolean("accepted"));
        assertEquals("12", field(p, "pin").currentText());
        assertEquals(null, field(p, "username").currentText());
    }
}
