package dev.mobileagent.agent;

import static dev.mobileagent.agent.Support.call;
import static dev.mobileagent.agent.Support.window;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import dev.mobileagent.agent.core.Agent;
import dev.mobileagent.agent.fake.FakeClock;
import dev.mobileagent.agent.fake.FakeNode;
import dev.mobileagent.agent.fake.FakePlatform;
import dev.mobileagent.agent.fake.FakeWindow;
import dev.mobileagent.agent.fake.Fixtures;
import org.json.JSONArray;
import org.json.JSONObject;
import org.junit.Test;

/**
 * Window metadata: type, owner, modality, whether the toolkit sends change events, the order. The
 * fake reports windows as Android 13+ does (fake/ReportedWindows): a dialog's touch region is its
 * whole task, so the app window under it is not reported at all.
 */
public class MetadataTest {
    final FakeClock clock = new FakeClock();

    JSONObject snapshot(FakePlatform p) throws Exception {
        return call(new Agent(p, clock), clock, "snapshot", "{}");
    }

    @Test
    public void aPermissionPromptIsAModalWindowOwnedByThePermissionController() throws Exception {
        JSONObject s = snapshot(Fixtures.fixedUi().add(Fixtures.permissionPrompt()));
        JSONObject prompt = window(s, Fixtures.PROMPT);
        assertEquals("application", prompt.getString("type"));
        assertEquals(Fixtures.PERMISSIONS, prompt.getString("owner"));
        assertEquals(Fixtures.PERMISSIONS, prompt.getString("package"));
        assertTrue(prompt.getBoolean("modal"));
        assertTrue(prompt.getBoolean("sends_change_events"));
        assertNull("the app under the prompt is not reported (its task is the prompt's touch region)",
            window(s, Fixtures.COMPOSE));
    }

    @Test
    public void anInAppAlertIsAModalWindowOfTheAppThatSendsNoChangeEvents() throws Exception {
        JSONObject s = snapshot(Fixtures.fixedUi().add(Fixtures.inAppAlert()));
        JSONObject alert = window(s, Fixtures.ALERT);
        assertTrue(alert.getBoolean("modal"));
        assertTrue("the app's own window has no owner", alert.isNull("owner"));
        assertEquals(Fixtures.APP, alert.getString("package"));
        assertFalse(alert.getBoolean("sends_change_events"));
        assertNull(window(s, Fixtures.COMPOSE));
    }

    @Test
    public void aTapOutsideAModalWindowReachesNothingUnderIt() throws Exception {
        FakePlatform p = Fixtures.fixedUi().add(Fixtures.inAppAlert());
        Agent agent = new Agent(p, clock);
        call(agent, clock, "tap", "{\"x\":900,\"y\":270}"); // the Big tab, under the alert's task-wide touch region
        FakeWindow app = p.window(Fixtures.COMPOSE);
        assertNull("the Big tab was not opened", findText(app.rootNode(), "Cell 499"));
    }

    @Test
    public void theKeyboardIsNotModalAndTheAppUnderItStaysReported() throws Exception {
        FakePlatform p = Fixtures.fixedUi();
        Agent agent = new Agent(p, clock);
        call(agent, clock, "tap", "{\"x\":540,\"y\":570}");
        JSONObject s = call(agent, clock, "snapshot", "{}");
        JSONObject keyboard = window(s, Fixtures.KEYBOARD);
        assertEquals("input_method", keyboard.getString("type"));
        assertEquals(FakePlatform.KEYBOARD_PACKAGE, keyboard.getString("owner"));
        assertFalse(keyboard.getBoolean("modal"));
        assertFalse(window(s, Fixtures.COMPOSE).getBoolean("modal"));
    }

    @Test
    public void windowsInSplitScreenAreNotModal() throws Exception {
        JSONObject s = snapshot(Fixtures.splitScreen());
        JSONArray ws = s.getJSONArray("windows");
        assertEquals("the status bar, the divider and both halves", 4, ws.length());
        for (int i = 0; i < ws.length(); i++) {
            assertFalse(ws.getJSONObject(i).getString("title") + " is not modal", ws.getJSONObject(i).getBoolean("modal"));
        }
        assertEquals("split_screen_divider", window(s, Fixtures.DIVIDER).getString("type"));
    }

    @Test
    public void aDialogInOneHalfOfSplitScreenIsModalAndTheOtherHalfIsNot() throws Exception {
        FakeWindow dialog = Fixtures.inAppAlert().bounds(100, 300, 980, 700).task(0, 63, 1080, 1180);
        JSONObject s = snapshot(Fixtures.splitScreen().add(dialog));
        assertTrue(window(s, Fixtures.ALERT).getBoolean("modal"));
        assertNull("the dialog's own task is not reported under it", window(s, Fixtures.RN));
        assertFalse("the other task is reported, and not modal", window(s, Fixtures.COMPOSE).getBoolean("modal"));
    }

    @Test
    public void composeContentSendsNoChangeEventsAndSystemUiOwnsTheStatusBar() throws Exception {
        JSONObject s = snapshot(Fixtures.fixedUi());
        assertFalse(window(s, Fixtures.COMPOSE).getBoolean("sends_change_events"));
        JSONObject bar = window(s, Fixtures.STATUS_BAR);
        assertEquals("system", bar.getString("type"));
        assertEquals(Fixtures.SYSTEMUI, bar.getString("owner"));
        assertTrue(bar.getBoolean("sends_change_events"));
        assertFalse(bar.getBoolean("modal"));
        assertTrue(window(snapshot(new FakePlatform().add(Fixtures.reactNativeForm())), Fixtures.RN).getBoolean("sends_change_events"));
    }

    @Test
    public void windowsComeTopMostFirstWithTheirFacts() throws Exception {
        JSONArray ws = snapshot(Fixtures.fixedUi().add(Fixtures.permissionPrompt())).getJSONArray("windows");
        assertEquals(2, ws.length());
        assertEquals(Fixtures.STATUS_BAR, ws.getJSONObject(0).getInt("id"));
        JSONObject prompt = ws.getJSONObject(1);
        assertEquals(Fixtures.PROMPT, prompt.getInt("id"));
        assertEquals("Permission", prompt.getString("title"));
        assertEquals(2, prompt.getInt("layer"));
        assertTrue("the dialog has the focus", prompt.getBoolean("focused"));
        assertTrue(prompt.getBoolean("active"));
        assertEquals("[60,850,1020,1480]", prompt.getJSONArray("bounds").toString());
        JSONObject app = window(snapshot(Fixtures.fixedUi()), Fixtures.COMPOSE);
        assertEquals("Compose fixture", app.getString("title"));
        assertEquals(1, app.getInt("layer"));
        assertTrue(app.getBoolean("focused"));
        assertEquals("[0,0,1080,2400]", app.getJSONArray("bounds").toString());
    }

    static FakeNode findText(FakeNode n, String text) {
        if (text.equals(n.currentText())) return n;
        for (FakeNode c : n.children()) {
            FakeNode f = findText(c, text);
            if (f != null) return f;
        }
        return null;
    }
}
