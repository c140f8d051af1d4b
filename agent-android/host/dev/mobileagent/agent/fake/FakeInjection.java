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
 *   <li>IInputManager.injectInputEventToTarget(event, INJECT_INPUT_EVENT_MODE_ASYNC, uid), the
 *       agent's call, or its compatibility form injectInputEvent(event, mode), scrcpy's: a binder
 *       call, nothing waited for;</li>
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
    /** android.os.Process.INVALID_UID: an injection that targets every window. */
    public static final int INVALID_UID = -1;

    /** The calls, by what they wait for. */
    public enum Call { INPUT_MANAGER_ASYNC, UI_AUTOMATION_NO_ANIMATION_WAIT, UI_AUTOMATION_WAIT_FOR_ANIMATIONS_SYNC }

    private FakeInjection() {}

    /** The call the agent makes on a device with the input service and API 34's UiAutomation. */
    public static Call agentsCall() {
        try {
            InputInjection.Path p = InputInjection.choose(new InputService(), new UiAutomation34()).path;
            switch (p) {
                case INPUT_MANAGER_TO_TARGET:
                case INPUT_MANAGER:
                case INPUT_MANAGER_VENDOR_THIRD_INT:
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

    /**
     * The uid the agent's injecting call targets: Process.INVALID_UID (-1, every window) or a uid
     * whose windows alone may receive the events (InputDispatcher's verifyTargetedInjection).
     */
    public static int agentsTargetUid() {
        try {
            InputService service = new InputService();
            InputInjection.choose(service, new UiAutomation34()).inject(null);
            return service.targetUids.get(0);
        } catch (MissingApi e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * The "input" service's binder interface as IInputManager.aidl has it from Android 13 (API 33):
     * injectInputEventToTarget, and injectInputEvent "only for compatibility purposes", which
     * InputManagerService forwards with Process.INVALID_UID. Records each call's mode and uid.
     */
    public static class InputService {
        public final List<Integer> modes = Collections.synchronizedList(new ArrayList<Integer>());
        public final List<Integer> targetUids = Collections.synchronizedList(new ArrayList<Integer>());
        /** How many calls came through the compatibility form. */
        public volatile int compatibilityCalls;

        public boolean injectInputEvent(InputEvent event, int mode) {
            compatibilityCalls++;
            return injectInputEventToTarget(event, mode, INVALID_UID);
        }

        public boolean injectInputEventToTarget(InputEvent event, int mode, int targetUid) {
            modes.add(mode);
            targetUids.add(targetUid);
            return true;
        }
    }

    /** A release that dropped the compatibility form, as IInputManager.aidl says one may. */
    public static final class InputServiceWithoutCompatibilityForm {
        public final List<Integer> targetUids = Collections.synchronizedList(new ArrayList<Integer>());

        public boolean injectInputEventToTarget(InputEvent event, int mode, int targetUid) {
            targetUids.add(targetUid);
            return true;
        }
    }

    /** The "input" service before Android 13: the two-argument form only. */
    public static final class InputServiceBefore33 {
        public final List<Integer> modes = Collections.synchronizedList(new ArrayList<Integer>());

        public boolean injectInputEvent(InputEvent event, int mode) {
            modes.add(mode);
            return true;
        }
    }

    /** The modified Android 8.1 ROM of scrcpy issue #2250: a three-int form instead of the two-argument one. */
    public static final class VendorInputService {
        public final List<int[]> calls = Collections.synchronizedList(new ArrayList<int[]>());

        public boolean injectInputEvent(InputEvent event, int mode, int third) {
            calls.add(new int[] {mode, third});
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
