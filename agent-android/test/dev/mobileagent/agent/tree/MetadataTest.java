package dev.mobileagent.agent.tree;

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

    // --- freeform and desktop windows (Android 15-16 desktop windowing) ----------------------------

    @Test
    public void aLoneFreeformWindowOverTheWallpaperIsNotModal() throws Exception {
        // the old rule: focused, floating, no application window under it, so modal
        FakePlatform p = new FakePlatform().add(Fixtures.statusBar()).add(Fixtures.wallpaper())
            .add(Fixtures.freeformForm(100, 300, 900, 1500));
        JSONObject s = snapshot(p);
        assertFalse("a freeform task's own window fills its task", window(s, Fixtures.RN).getBoolean("modal"));
        assertNull("the wallpaper (TYPE_WALLPAPER) is never reported", window(s, Fixtures.WALLPAPER));
    }

    @Test
    public void aFreeformWindowsTouchRegionIsItsFrameSoTheHomeScreenAroundItStaysReported() throws Exception {
        JSONObject s = snapshot(new FakePlatform().add(Fixtures.statusBar()).add(Fixtures.home())
            .add(Fixtures.freeformForm(100, 300, 900, 1500)));
        assertFalse(window(s, Fixtures.RN).getBoolean("modal"));
        assertFalse(window(s, Fixtures.HOME).getBoolean("modal"));
        assertTrue(window(s, Fixtures.RN).getBoolean("focused"));
    }

    @Test
    public void aDialogInsideAFreeformTaskOverTheHomeScreenIsModal() throws Exception {
        // the old rule: the home screen, another task's window reported under the dialog, made it not modal
        JSONObject s = snapshot(new FakePlatform().add(Fixtures.statusBar()).add(Fixtures.home())
            .add(Fixtures.freeformForm(100, 300, 900, 1500)).add(Fixtures.alertInTask(100, 300, 900, 1500)));
        assertTrue(window(s, Fixtures.ALERT).getBoolean("modal"));
        assertNull("its own task's window is under its touch region", window(s, Fixtures.RN));
        assertFalse("another task's window is still reported", window(s, Fixtures.HOME).getBoolean("modal"));
    }

    @Test
    public void aDialogInsideALoneFreeformTaskIsModal() throws Exception {
        JSONObject s = snapshot(new FakePlatform().add(Fixtures.statusBar()).add(Fixtures.wallpaper())
            .add(Fixtures.freeformForm(100, 300, 900, 1500)).add(Fixtures.alertInTask(100, 300, 900, 1500)));
        assertTrue(window(s, Fixtures.ALERT).getBoolean("modal"));
    }

    @Test
    public void ofTwoOverlappingFreeformTasksNeitherIsModal() throws Exception {
        FakeWindow below = Fixtures.composeApp().bounds(0, 200, 800, 1600).freeform();
        JSONObject s = snapshot(new FakePlatform().add(Fixtures.statusBar()).add(Fixtures.wallpaper()).add(below)
            .add(Fixtures.freeformForm(300, 800, 1080, 2000)));
        assertFalse(window(s, Fixtures.RN).getBoolean("modal"));
        assertFalse(window(s, Fixtures.COMPOSE).getBoolean("modal"));
    }

    @Test
    public void aFullScreenAppNeedsNoTaskLookUp() throws Exception {
        FakePlatform p = Fixtures.fixedUi();
        snapshot(p);
        assertEquals("the task's bounds are asked for only for a focused floating window", 0, p.focusedTaskQueries);
        snapshot(Fixtures.fixedUi().add(Fixtures.inAppAlert()));
    }

    // --- what the accessibility window list leaves out (AccessibilityWindowManager) ---------------

    @Test
    public void aNonTouchableTrustedOverlayIsNotReportedAndHidesNothing() throws Exception {
        // the old fake reported it and let it take the whole display, hiding the status bar
        FakePlatform p = Fixtures.fixedUi().add(Fixtures.screenDecoration());
        Agent agent = new Agent(p, clock);
        JSONObject s = call(agent, clock, "snapshot", "{}");
        assertNull(window(s, Fixtures.OVERLAY));
        assertTrue(window(s, Fixtures.STATUS_BAR) != null);
        call(agent, clock, "tap", "{\"x\":540,\"y\":30}");
        assertEquals("touches go through it", java.util.Arrays.asList(Fixtures.STATUS_BAR), p.downWindows);
    }

    @Test
    public void anAccessibilityOverlayIsReportedButTakesNoSpace() throws Exception {
        JSONObject s = snapshot(Fixtures.fixedUi().add(Fixtures.accessibilityOverlay()));
        assertEquals("accessibility_overlay", window(s, Fixtures.OVERLAY).getString("type"));
        assertTrue("the status bar under it is still reported", window(s, Fixtures.STATUS_BAR) != null);
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
