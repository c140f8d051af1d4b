package dev.mobileagent.agent.input;

import static dev.mobileagent.agent.Support.call;
import static dev.mobileagent.agent.Support.find;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import dev.mobileagent.agent.Support;
import dev.mobileagent.agent.core.Agent;
import dev.mobileagent.agent.core.AgentError;
import dev.mobileagent.agent.fake.FakeClock;
import dev.mobileagent.agent.fake.FakeNode;
import dev.mobileagent.agent.fake.FakePlatform;
import dev.mobileagent.agent.fake.FakeWindow;
import dev.mobileagent.agent.fake.Fixtures;
import org.json.JSONObject;
import org.junit.Test;

/** The text method: direct where the node accepts it, else keys, else the clipboard, restored after. */
public class TextTest {
    final FakeClock clock = new FakeClock();

    public static FakeNode field(FakeWindow w, String res) {
        return byRes(w.rootNode(), res);
    }

    public static FakeNode byRes(FakeNode n, String res) {
        if (res.equals(n.a.res)) return n;
        for (FakeNode c : n.children()) {
            FakeNode f = byRes(c, res);
            if (f != null) return f;
        }
        return null;
    }

    @Test
    public void aFocusedReactNativeInputIsFilledDirectlyInOneOperation() throws Exception {
        FakeWindow form = Fixtures.reactNativeForm();
        FakePlatform p = new FakePlatform().add(form);
        Agent agent = new Agent(p, clock);
        FakeNode name = field(form, "name");
        call(agent, clock, "tap", "{\"x\":540,\"y\":360}");
        assertEquals(name, p.focusedNode());
        int keysBefore = p.keys.size();
        JSONObject r = call(agent, clock, "text", "{\"node\":null,\"text\":\"Ada Lovelace\",\"method\":\"auto\"}");
        assertTrue(r.getBoolean("accepted"));
        assertEquals("direct", r.getString("method"));
        assertEquals("Ada Lovelace", name.currentText());
        assertEquals("one operation", 1, name.setTextCalls);
        assertEquals("no key events", keysBefore, p.keys.size());
    }

    @Test
    public void aFocusedElementWithoutDirectSettingGetsKeyEventsAndTheFallbackIsNamed() throws Exception {
        FakePlatform p = Fixtures.fixedUi();
        Agent agent = new Agent(p, clock);
        int pin = find(call(agent, clock, "snapshot", "{}"), "res", "pin").getInt("id");
        JSONObject r = call(agent, clock, "text", "{\"node\":" + pin + ",\"text\":\"1234\"}");
        assertEquals("keys", r.getString("method"));
        assertTrue(r.getBoolean("accepted"));
        FakeNode node = field(p.window(Fixtures.COMPOSE), "pin");
        assertEquals("1234", node.currentText());
        assertEquals(0, node.setTextCalls);
        assertEquals(8, p.keys.size());
    }

    @Test
    public void textNoKeyMapCanTypeIsPastedThroughTheClipboardWhichIsRestored() throws Exception {
        FakePlatform p = Fixtures.fixedUi();
        p.setClipboardForTest("the user's clip");
        Agent agent = new Agent(p, clock);
        int pin = find(call(agent, clock, "snapshot", "{}"), "res", "pin").getInt("id");
        JSONObject r = call(agent, clock, "text", "{\"node\":" + pin + ",\"text\":\"héllo 👋\"}");
        assertEquals("clipboard", r.getString("method"));
        assertEquals("héllo 👋", field(p.window(Fixtures.COMPOSE), "pin").currentText());
        assertEquals("the clipboard is restored", "the user's clip", p.clipboardText());
    }

    @Test
    public void anEmptyClipboardIsEmptyAgainAfterThePaste() throws Exception {
        FakePlatform p = Fixtures.fixedUi();
        Agent agent = new Agent(p, clock);
        int pin = find(call(agent, clock, "snapshot", "{}"), "res", "pin").getInt("id");
        call(agent, clock, "text", "{\"node\":" + pin + ",\"text\":\"日本\",\"method\":\"clipboard\"}");
        assertEquals(null, p.clipboardText());
        assertEquals(1, p.clipboardWrites);
    }

    @Test
    public void aPasteShowsNoClipboardOverlayAndTheNextSnapshotHasNone() throws Exception {
        // Android 13+: SystemUI's ClipboardListener shows its overlay for every clip that lacks
        // EXTRA_SUPPRESS_OVERLAY; the agent's paste and its restore both carry it
        FakePlatform p = Fixtures.fixedUi();
        p.setClipboardForTest("the user's clip");
        Agent agent = new Agent(p, clock);
        int pin = find(call(agent, clock, "snapshot", "{}"), "res", "pin").getInt("id");
        call(agent, clock, "text", "{\"node\":" + pin + ",\"text\":\"héllo 👋\",\"method\":\"clipboard\"}");
        assertEquals(0, p.clipboardOverlays);
        assertEquals(null, Support.window(call(agent, clock, "snapshot", "{}"), Fixtures.CLIPBOARD_OVERLAY));
    }

    @Test
    public void aClipSetWithoutTheExtraBringsTheOverlayThatTakesTouches() throws Exception {
        // the double of the agent's old call: a plain setPrimaryClip from the shell
        FakePlatform p = Fixtures.fixedUi();
        Agent agent = new Agent(p, clock);
        p.setClipboardText("x", false);
        JSONObject overlay = Support.window(call(agent, clock, "snapshot", "{}"), Fixtures.CLIPBOARD_OVERLAY);
        assertEquals("system", overlay.getString("type"));
        assertEquals(Fixtures.SYSTEMUI, overlay.getString("owner"));
        call(agent, clock, "tap", "{\"x\":300,\"y\":2050}");
        assertEquals("the tap went to the overlay, not to the app under it",
            java.util.Arrays.asList(Fixtures.CLIPBOARD_OVERLAY), p.downWindows);
    }

    @Test
    public void aClipTheShellMayNotPutBackNeverMasksThePastesResult() throws Exception {
        FakePlatform p = Fixtures.fixedUi();
        p.setClipboardForTest("a photo", true); // content URIs: ClipboardService refuses them from the shell
        Agent agent = new Agent(p, clock);
        int pin = find(call(agent, clock, "snapshot", "{}"), "res", "pin").getInt("id");
        JSONObject r = call(agent, clock, "text", "{\"node\":" + pin + ",\"text\":\"日本\"}");
        assertEquals("clipboard", r.getString("method"));
        assertTrue(r.getBoolean("accepted"));
        assertEquals("日本", field(p.window(Fixtures.COMPOSE), "pin").currentText());
    }

    /** The fixture's PIN field refusing ACTION_PASTE; {@code keyToo}: ignoring KEYCODE_PASTE as well. */
    public static FakePlatform pinRefusingThePasteAction(boolean keyToo) {
        FakePlatform p = Fixtures.fixedUi();
        field(p.window(Fixtures.COMPOSE), "pin").refusesPasteAction(keyToo);
        p.setClipboardForTest("the user's clip");
        return p;
    }

    /** "日本" pasted into the fixture's PIN field through the clipboard; the result. */
    public JSONObject pasteIntoPin(FakePlatform p) throws Exception {
        Agent agent = new Agent(p, clock);
        int pin = find(call(agent, clock, "snapshot", "{}"), "res", "pin").getInt("id");
        return call(agent, clock, "text", "{\"node\":" + pin + ",\"text\":\"日本\",\"method\":\"clipboard\"}");
    }

    @Test
    public void whereThePasteActionIsRefusedTheAppPastesOnKeycodePasteBeforeTheUsersClipIsPutBack() throws Exception {
        // the app reads the clip only when its UI thread handles KEYCODE_PASTE (TextView.doKeyDown):
        // the DOWN is injected with INJECT_INPUT_EVENT_MODE_WAIT_FOR_FINISH before the restore
        FakePlatform p = pinRefusingThePasteAction(false);
        assertTrue(pasteIntoPin(p).getBoolean("accepted"));
        String shown = field(p.window(Fixtures.COMPOSE), "pin").currentText();
        assertEquals("the pasted text, not the user's clip", "日本", shown);
        assertEquals("the user's clip", p.clipboardText());
    }

    @Test
    public void aPasteThatNeverArrivesInTheFieldIsNotAccepted() throws Exception {
        FakePlatform p = pinRefusingThePasteAction(true);
        assertFalse(pasteIntoPin(p).getBoolean("accepted"));
        assertEquals(null, field(p.window(Fixtures.COMPOSE), "pin").currentText());
        assertEquals("the user's clip", p.clipboardText());
    }

    /**
     * H6: a busy app would hold the waiting injection (and the input lock) for InputManagerService's
     * 30 s; the wait is bounded at 2 s, the pasted clip stays (restoring it would have the pending
     * paste insert the user's clip), and the paste is not accepted.
     */
    @Test
    public void aPasteKeyTheBusyAppDoesNotFinishIsBoundedAndLeavesThePastedClip() throws Exception {
        FakePlatform p = pinRefusingThePasteAction(false).withClock(clock);
        p.appBusy();
        long start = clock.nowMs();
        JSONObject r = pasteIntoPin(p);
        long took = clock.nowMs() - start;
        assertFalse(r.getBoolean("accepted"));
        assertTrue(r.toString(), r.getString("reason").contains("did not finish the paste key"));
        assertEquals("bounded at 2 s, not the 30 s injection timeout",
            java.util.Arrays.asList(TextEntry.PASTE_KEY_WAIT_MS), p.keyWaits);
        assertTrue(took + " ms", took < FakePlatform.INJECTION_TIMEOUT_MS);
        assertEquals("the pasted clip is left for the pending paste", "日本", p.clipboardText());
        p.appIdle();
        assertEquals("the pending paste inserts the pasted text, not the user's clip", "日本",
            field(p.window(Fixtures.COMPOSE), "pin").currentText());
    }

    /** H1: any change of the text is not arrival: a clip set that silently failed pastes the user's old clip. */
    @Test
    public void aPasteOfTheUsersOldClipIsNotAccepted() throws Exception {
        FakePlatform p = Fixtures.fixedUi();
        p.setClipboardForTest("the user's clip");
        p.clipSetsIgnored = true;
        JSONObject r = pasteIntoPin(p);
        assertEquals("the user's clip", field(p.window(Fixtures.COMPOSE), "pin").currentText());
        assertFalse("the field changed, but not to the pasted text", r.getBoolean("accepted"));
    }

    /** H1: a password field reads masked; there the text growing by the pasted length is arrival. */
    @Test
    public void aPasteIntoAPasswordFieldIsJudgedByItsLength() throws Exception {
        FakePlatform p = Fixtures.fixedUi();
        field(p.window(Fixtures.COMPOSE), "pin").password();
        p.setClipboardForTest("the user's clip");
        JSONObject r = pasteIntoPin(p);
        assertTrue(r.toString(), r.getBoolean("accepted"));
        assertEquals("日本", field(p.window(Fixtures.COMPOSE), "pin").currentText());
    }

    @Test
    public void aClipTheShellCannotReadIsLeftAloneNotCleared() throws Exception {
        FakePlatform p = Fixtures.fixedUi();
        p.setUnreadableClipboardForTest("the user's clip");
        assertTrue(pasteIntoPin(p).getBoolean("accepted"));
        assertEquals("left as the paste left it: clearing would wipe the user's clip", "日本", p.clipboardText());
    }

    @Test
    public void autoChoosesDirectForANodeThatAcceptsItEvenForUnicode() throws Exception {
        FakePlatform p = Fixtures.fixedUi();
        Agent agent = new Agent(p, clock);
        int user = find(call(agent, clock, "snapshot", "{}"), "res", "username").getInt("id");
        assertEquals("direct", call(agent, clock, "text", "{\"node\":" + user + ",\"text\":\"héllo 👋\"}").getString("method"));
    }

    @Test
    public void directAskedOfANodeThatRefusesItIsInvalidParams() throws Exception {
        FakePlatform p = Fixtures.fixedUi();
        Agent agent = new Agent(p, clock);
        int pin = find(call(agent, clock, "snapshot", "{}"), "res", "pin").getInt("id");
        try {
            call(agent, clock, "text", "{\"node\":" + pin + ",\"text\":\"1\",\"method\":\"direct\"}");
            fail("direct was accepted");
        } catch (AgentError e) {
            assertEquals("invalid_params", e.code);
        }
    }

    @Test
    public void anUnknownNodeIsNotFoundAndNothingFocusedIsInvalidParams() throws Exception {
        Agent agent = new Agent(Fixtures.fixedUi(), clock);
        try {
            call(agent, clock, "text", "{\"node\":99999,\"text\":\"x\"}");
            fail();
        } catch (AgentError e) {
            assertEquals("not_found", e.code);
        }
        try {
            call(agent, clock, "text", "{\"text\":\"x\"}");
            fail();
        } catch (AgentError e) {
            assertEquals("invalid_params", e.code);
        }
    }
}
