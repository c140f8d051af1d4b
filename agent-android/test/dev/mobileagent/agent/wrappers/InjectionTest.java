package dev.mobileagent.agent.wrappers;

import static dev.mobileagent.agent.Support.call;
import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import dev.mobileagent.agent.Support;
import dev.mobileagent.agent.core.Agent;
import dev.mobileagent.agent.fake.FakeClock;
import dev.mobileagent.agent.fake.FakeInjection;
import dev.mobileagent.agent.fake.FakeNode;
import dev.mobileagent.agent.fake.FakePlatform;
import dev.mobileagent.agent.fake.Fixtures;
import dev.mobileagent.agent.input.TextTest;
import java.util.Arrays;
import org.json.JSONObject;
import org.junit.Test;

/**
 * Injection never waits for the window manager or for the app. On Android 14+ the public
 * UiAutomation.injectInputEvent(event, sync) waits for window animations around every DOWN and UP
 * (UiAutomation.java, UiAutomationConnection.injectInputEvent, WindowManagerService
 * .syncInputTransactions / waitForAnimationsToComplete); the fake platform charges each call what
 * it costs there (fake/FakeInjection), so the agent's old call shows up as seconds during a window
 * transition, and the call the agent makes now (wrappers/InputInjection) does not.
 */
public class InjectionTest {
    final FakeClock clock = new FakeClock();
    final FakePlatform platform = Fixtures.fixedUi().withClock(clock);
    final Agent agent = new Agent(platform, clock);

    long tapDuringAWindowTransition() throws Exception {
        platform.animateWindows(2_000); // a slow app transition, an animator scale of 10, a dialog sliding in
        long start = clock.nowMs();
        JSONObject r = call(agent, clock, "tap", "{\"x\":540,\"y\":970}");
        assertTrue(r.getBoolean("accepted"));
        return clock.nowMs() - start;
    }

    @Test
    public void aTapDuringAWindowTransitionIsAcknowledgedWithoutWaitingForIt() throws Exception {
        assertEquals(FakeInjection.Call.INPUT_MANAGER_ASYNC, platform.injection);
        long took = tapDuringAWindowTransition();
        assertTrue("acknowledged after " + took + " ms", took <= 50);
    }

    @Test
    public void theOldCallWaitsForTheTransitionBeforeTheDownAndPaysFramesForTheUp() throws Exception {
        platform.injection = FakeInjection.Call.UI_AUTOMATION_WAIT_FOR_ANIMATIONS_SYNC;
        long took = tapDuringAWindowTransition();
        assertTrue("the old call took " + took + " ms", took >= 2_000 + 2 * FakeInjection.FRAME_MS);
    }

    @Test
    public void typingByKeysPaysNothingPerKey() throws Exception {
        int pin = Support.find(call(agent, clock, "snapshot", "{}"), "res", "pin").getInt("id");
        long start = clock.nowMs();
        call(agent, clock, "text", "{\"node\":" + pin + ",\"text\":\"1234\",\"method\":\"keys\"}");
        long agents = clock.nowMs() - start;
        platform.injection = FakeInjection.Call.UI_AUTOMATION_NO_ANIMATION_WAIT;
        start = clock.nowMs();
        call(agent, clock, "text", "{\"node\":" + pin + ",\"text\":\"1234\",\"method\":\"keys\"}");
        long windowInfoSyncs = clock.nowMs() - start;
        assertEquals(0, agents);
        assertEquals("a window-info sync around each DOWN and UP", 8 * FakeInjection.FRAME_MS, windowInfoSyncs);
    }

    @Test
    public void theAgentInjectsThroughInjectInputEventToTargetForEveryWindow() throws Exception {
        // IInputManager.aidl (Android 13+): injectInputEventToTarget with Process.INVALID_UID targets all
        // windows; injectInputEvent(event, mode) "exists only for compatibility purposes"
        FakeInjection.InputService input = new FakeInjection.InputService();
        FakeInjection.UiAutomation34 ua = new FakeInjection.UiAutomation34();
        InputInjection injection = InputInjection.choose(input, ua);
        assertEquals(InputInjection.Path.INPUT_MANAGER_TO_TARGET, injection.path);
        assertTrue(injection.inject(null));
        assertEquals("INJECT_INPUT_EVENT_MODE_ASYNC", Arrays.asList(0), input.modes);
        assertEquals("Process.INVALID_UID", Arrays.asList(-1), input.targetUids);
        assertEquals("not through the compatibility form", 0, input.compatibilityCalls);
        assertTrue("UiAutomation is not used", ua.calls.isEmpty());
    }

    @Test
    public void aReleaseWithoutTheCompatibilityFormStillInjectsThroughTheInputService() throws Exception {
        FakeInjection.InputServiceWithoutCompatibilityForm input =
            new FakeInjection.InputServiceWithoutCompatibilityForm();
        FakeInjection.UiAutomation34 ua = new FakeInjection.UiAutomation34();
        InputInjection injection = InputInjection.choose(input, ua);
        assertEquals(InputInjection.Path.INPUT_MANAGER_TO_TARGET, injection.path);
        injection.inject(null);
        assertEquals(Arrays.asList(-1), input.targetUids);
        assertTrue("no window-manager sync through UiAutomation", ua.calls.isEmpty());
    }

    @Test
    public void beforeAndroid13TheTwoArgumentFormIsUsed() throws Exception {
        FakeInjection.InputServiceBefore33 input = new FakeInjection.InputServiceBefore33();
        InputInjection injection = InputInjection.choose(input, new FakeInjection.UiAutomation33());
        assertEquals(InputInjection.Path.INPUT_MANAGER, injection.path);
        injection.inject(null);
        assertEquals(Arrays.asList(0), input.modes);
    }

    @Test
    public void theModifiedRomOfScrcpyIssue2250GetsItsThreeIntFormWithZero() throws Exception {
        // scrcpy commit b7a06278: a modified Android 8.1 ROM with injectInputEvent(event, mode, int) only
        FakeInjection.VendorInputService input = new FakeInjection.VendorInputService();
        InputInjection injection = InputInjection.choose(input, new FakeInjection.UiAutomation33());
        assertEquals(InputInjection.Path.INPUT_MANAGER_VENDOR_THIRD_INT, injection.path);
        injection.inject(null);
        assertArrayEquals(new int[] {0, 0}, input.calls.get(0));
    }

    @Test
    public void waitingForTheAppIsWaitForFinishOnTheServiceAndSyncOnUiAutomation() throws Exception {
        FakeInjection.InputService input = new FakeInjection.InputService();
        InputInjection.choose(input, new FakeInjection.UiAutomation34()).injectAndWait(null);
        assertEquals("INJECT_INPUT_EVENT_MODE_WAIT_FOR_FINISH", Arrays.asList(2), input.modes);
        assertEquals(Arrays.asList(-1), input.targetUids);
        FakeInjection.UiAutomation34 ua = new FakeInjection.UiAutomation34();
        InputInjection.choose(null, ua).injectAndWait(null);
        assertArrayEquals("sync true, waitForAnimations false", new boolean[] {true, false}, ua.calls.get(0));
    }

    @Test
    public void aTapForEveryWindowReachesTheAppWhileOneTargetedAtRootsUidIsDroppedThoughAcked() throws Exception {
        // InputDispatcher's verifyTargetedInjection drops an event bound for a window of another owner;
        // an ASYNC injection is SUCCEEDED as soon as it is queued, so the verdict still says true
        assertEquals(FakeInjection.INVALID_UID, platform.injectionTargetUid);
        assertTrue(call(agent, clock, "tap", "{\"x\":180,\"y\":270}").getBoolean("accepted"));
        assertEquals(Arrays.asList(Fixtures.COMPOSE), platform.downWindows);
        platform.injectionTargetUid = 0;
        assertTrue(call(agent, clock, "tap", "{\"x\":540,\"y\":270}").getBoolean("accepted"));
        assertEquals("the second tap never reached a window", Arrays.asList(Fixtures.COMPOSE), platform.downWindows);
        assertEquals("DOWN and UP dropped", 2, platform.droppedEvents.size());
    }

    @Test
    public void anAsynchronouslyInjectedKeyIsHandledByTheAppAfterTheCallReturned() throws Exception {
        int pin = Support.find(call(agent, clock, "snapshot", "{}"), "res", "pin").getInt("id");
        call(agent, clock, "text", "{\"node\":" + pin + ",\"text\":\"1\",\"method\":\"keys\"}");
        FakeNode field = TextTest.field(platform.window(Fixtures.COMPOSE), "pin");
        assertEquals("queued for the app, not handled during the call", null, field.a.text);
        assertEquals("handled by the time anyone looks", "1", field.currentText());
        platform.appBusy();
        platform.injectKey(0, 9, 0, clock.nowMs(), clock.nowMs()); // KEYCODE_2
        assertEquals("a busy UI thread has not handled it", "1", field.currentText());
        platform.appIdle();
        assertEquals("12", field.currentText());
    }

    @Test
    public void withoutTheInputServiceApi34sHiddenFormIsCalledWithoutWaiting() throws Exception {
        FakeInjection.UiAutomation34 ua = new FakeInjection.UiAutomation34();
        InputInjection injection = InputInjection.choose(null, ua);
        assertEquals(InputInjection.Path.UI_AUTOMATION_NO_ANIMATION_WAIT, injection.path);
        injection.inject(null);
        assertArrayEquals("sync false, waitForAnimations false", new boolean[] {false, false}, ua.calls.get(0));
    }

    @Test
    public void belowApi34ThePublicFormIsCalledAsynchronously() throws Exception {
        FakeInjection.UiAutomation33 ua = new FakeInjection.UiAutomation33();
        InputInjection injection = InputInjection.choose(null, ua);
        assertEquals(InputInjection.Path.UI_AUTOMATION_ASYNC, injection.path);
        injection.inject(null);
        assertEquals(Arrays.asList(false), ua.syncs);
    }
}
