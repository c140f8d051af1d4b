package dev.mobileagent.agent;

import static dev.mobileagent.agent.Support.call;
import static dev.mobileagent.agent.Support.window;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import dev.mobileagent.agent.core.Agent;
import dev.mobileagent.agent.fake.FakeClock;
import dev.mobileagent.agent.fake.FakePlatform;
import dev.mobileagent.agent.fake.Fixtures;
import org.json.JSONArray;
import org.json.JSONObject;
import org.junit.Test;

/** Window metadata: type, owner, modality, whether the toolkit sends change events, the order. */
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
        JSONObject app = window(s, Fixtures.COMPOSE);
        assertFalse("the app under the prompt is not modal", app.getBoolean("modal"));
        assertTrue(app.isNull("owner"));
    }

    @Test
    public void anInAppAlertIsAModalWindowOfTheAppThatSendsNoChangeEvents() throws Exception {
        JSONObject alert = window(snapshot(Fixtures.fixedUi().add(Fixtures.inAppAlert())), Fixtures.ALERT);
        assertTrue(alert.getBoolean("modal"));
        assertTrue("the app's own window has no owner", alert.isNull("owner"));
        assertEquals(Fixtures.APP, alert.getString("package"));
        assertFalse(alert.getBoolean("sends_change_events"));
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
        assertEquals(Fixtures.STATUS_BAR, ws.getJSONObject(0).getInt("id"));
        assertEquals(Fixtures.PROMPT, ws.getJSONObject(1).getInt("id"));
        assertEquals(Fixtures.COMPOSE, ws.getJSONObject(2).getInt("id"));
        JSONObject app = ws.getJSONObject(2);
        assertEquals("Compose fixture", app.getString("title"));
        assertEquals(1, app.getInt("layer"));
        assertTrue(app.getBoolean("focused"));
        assertTrue(app.getBoolean("active"));
        assertEquals("[0,0,1080,2400]", app.getJSONArray("bounds").toString());
    }
}
