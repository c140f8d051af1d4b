package dev.mobileagent.agent.fake;

import android.view.InputEvent;
import dev.mobileagent.agent.wrappers.InputInjection;
import dev.mobileagent.agent.wrappers.MissingApi;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * What an injected event costs on Android 14+, by the call that injects it:
 * <ul>
 *   <li>IInputManager.injectInputEvent(event, INJECT_INPUT_EVENT_MODE_ASYNC), scrcpy's call and the
 *       agent's: a binder call, nothing waited for;</li>
 *   <li>UiAutomation.injectInputEvent(event, sync, waitForAnimations): UiAutomationConnection calls
 *       IWindowManager.syncInputTransactions(waitForAnimations) before a DOWN and after an UP, which
 *       waits for every window animation to end (WindowManagerService.waitForAnimationsToComplete,
 *       at most ANIMATION_COMPLETED_TIMEOUT_MS, 5 s) when asked, and then for SurfaceFlinger to
 *       report the window infos (a frame); sync=true injects with INJECT_INPUT_EVENT_MODE_WAIT_FOR_FINISH,
 *       which waits for the app to handle the event (a frame);</li>
 *   <li>UiAutomation.injectInputEvent(event, sync), the public form the agent used before: the
 *       three-argument form with waitForAnimations true (core/java/android/app/UiAutomation.java).</li>
 * </ul>
 */
public final class FakeInjection {
    public static final long FRAME_MS = 16;
    public static final long ANIMATION_TIMEOUT_MS = 5_000;

    /** The calls, by what they wait for. */
    public enum Call { INPUT_MANAGER_ASYNC, UI_AUTOMATION_NO_ANIMATION_WAIT, UI_AUTOMATION_WAIT_FOR_ANIMATIONS_SYNC }

    private FakeInjection() {}

    /** The call the agent makes on a device with the input service and API 34's UiAutomation. */
    public static Call agentsCall() {
        try {
            InputInjection.Path p = InputInjection.choose(new InputService(), new UiAutomation34()).path;
            switch (p) {
                case INPUT_MANAGER:
                case INPUT_MANAGER_WITH_UID:
                    return Call.INPUT_MANAGER_ASYNC;
                case UI_AUTOMATION_NO_ANIMATION_WAIT:
                    return Call.UI_AUTOMATION_NO_ANIMATION_WAIT;
                default:
                    return Call.UI_AUTOMATION_WAIT_FOR_ANIMATIONS_SYNC;
            }
        } catch (MissingApi e) {
            throw new IllegalStateException(e);
        }
    }

    /** Milliseconds the call blocks its caller for an event of this action (0 down, 1 up, 2 move). */
    static long costMs(Call call, int action, long nowMs, long animatingUntilMs) {
        if (call == Call.INPUT_MANAGER_ASYNC || action == 2) return 0;
        long animation = call == Call.UI_AUTOMATION_WAIT_FOR_ANIMATIONS_SYNC
            ? Math.min(ANIMATION_TIMEOUT_MS, Math.max(0, animatingUntilMs - nowMs)) : 0;
        long appHandles = call == Call.UI_AUTOMATION_WAIT_FOR_ANIMATIONS_SYNC ? FRAME_MS : 0;
        return animation + FRAME_MS + appHandles;
    }

    /** The "input" service's binder interface as IInputManager has it; records each call's mode. */
    public static final class InputService {
        public final List<Integer> modes = Collections.synchronizedList(new ArrayList<Integer>());

        public boolean injectInputEvent(InputEvent event, int mode) {
            modes.add(mode);
            return true;
        }
    }

    /** UiAutomation's injection methods on API 34+; records (sync, waitForAnimations) of each call. */
    public static final class UiAutomation34 {
        public final List<boolean[]> calls = Collections.synchronizedList(new ArrayList<boolean[]>());

        public boolean injectInputEvent(InputEvent event, boolean sync) {
            return injectInputEvent(event, sync, true);
        }

        public boolean injectInputEvent(InputEvent event, boolean sync, boolean waitForAnimations) {
            calls.add(new boolean[] {sync, waitForAnimations});
            return true;
        }
    }

    /** UiAutomation's injection method below API 34: the two-argument form only. */
    public static final class UiAutomation33 {
        public final List<Boolean> syncs = Collections.synchronizedList(new ArrayList<Boolean>());

        public boolean injectInputEvent(InputEvent event, boolean sync) {
            syncs.add(sync);
            return true;
        }
    }
}
