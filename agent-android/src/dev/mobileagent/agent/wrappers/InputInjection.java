package dev.mobileagent.agent.wrappers;

import android.view.InputEvent;
import java.lang.reflect.Method;

/**
 * Injecting input without waiting for the window manager or for the app (docs/agent-android.md,
 * "Injection"). UiAutomation's public injectInputEvent(event, sync) waits for window animations on
 * API 34+ (it is the three-argument form with waitForAnimations true, and UiAutomationConnection
 * calls IWindowManager.syncInputTransactions before a DOWN and after an UP), and sync=true waits
 * for the app to finish handling the event. So, in this order of preference:
 * <ol>
 *   <li>IInputManager.injectInputEventToTarget(event, mode, Process.INVALID_UID) from the "input"
 *       service (the shell user holds INJECT_EVENTS): no window manager sync at all, and -1 targets
 *       every window. IInputManager.aidl, Android 13 (API 33) on: "providing
 *       android.os.Process#INVALID_UID to target all windows"; InputManagerService hands any other
 *       uid to the dispatcher, which drops an event bound for a window of another owner
 *       (InputDispatcher's verifyTargetedInjection) while an ASYNC call still returns true;</li>
 *   <li>IInputManager.injectInputEvent(event, mode): the only form before Android 13, kept after it
 *       "only for compatibility purposes" (IInputManager.aidl); InputManagerService forwards it to
 *       injectInputEventToTarget(event, mode, INVALID_UID). This is scrcpy's call
 *       (server/src/main/java/com/genymobile/scrcpy/wrappers/InputManager.java);</li>
 *   <li>IInputManager.injectInputEvent(event, mode, int): not an AOSP form. A modified Android 8.1
 *       ROM has it instead of the two-argument one (scrcpy issue #2250, commit b7a06278, which gave
 *       the third int 0; scrcpy dropped it in 6a4a4a28 with its move to InputManager.getInstance()).
 *       Its meaning is unknown, so 0 as scrcpy passed;</li>
 *   <li>UiAutomation.injectInputEvent(event, sync, false) (hidden, API 34+): no animation wait (the
 *       window-info sync around DOWN and UP remains);</li>
 *   <li>UiAutomation.injectInputEvent(event, sync): below API 34 no sync at all.</li>
 * </ol>
 * {@link #inject} never waits for the app: its verdict means the event was handed to the input
 * dispatcher. {@link #injectAndWait} waits until the app has finished handling the event
 * (INJECT_INPUT_EVENT_MODE_WAIT_FOR_FINISH, UiAutomation's sync). A refusal is a SecurityException
 * from the platform.
 */
public final class InputInjection {
    /** InputManager.INJECT_INPUT_EVENT_MODE_ASYNC (hidden). */
    static final int MODE_ASYNC = 0;
    /** InputManager.INJECT_INPUT_EVENT_MODE_WAIT_FOR_FINISH (hidden): returns once the app finished the event. */
    static final int MODE_WAIT_FOR_FINISH = 2;
    /** android.os.Process.INVALID_UID: injectInputEventToTarget's "any window". */
    static final int ANY_WINDOW = -1;

    /** How events go out. */
    public enum Path {
        INPUT_MANAGER_TO_TARGET, INPUT_MANAGER, INPUT_MANAGER_VENDOR_THIRD_INT, UI_AUTOMATION_NO_ANIMATION_WAIT,
        UI_AUTOMATION_ASYNC
    }

    private final Object target;
    private final Method method;
    public final Path path;

    private InputInjection(Object target, Method method, Path path) {
        this.target = target;
        this.method = method;
        this.path = path;
    }

    /** The input service's binder interface, or null where the device hides it. */
    public static Object inputService() {
        try {
            Class<?> sm = Reflect.type("android.os.ServiceManager");
            Object binder = Reflect.invoke(Reflect.method(sm, "getService", String.class), null, "input");
            if (binder == null) return null;
            Class<?> stub = Reflect.type("android.hardware.input.IInputManager$Stub");
            return Reflect.invoke(Reflect.method(stub, "asInterface", Reflect.type("android.os.IBinder")), null, binder);
        } catch (MissingApi | RuntimeException e) {
            return null;
        }
    }

    /** The preferred path: the input service when given and usable, else the UiAutomation's forms. */
    public static InputInjection choose(Object inputService, Object uiAutomation) throws MissingApi {
        if (inputService != null) {
            InputInjection viaService = throughInputService(inputService);
            if (viaService != null) return viaService;
        }
        Class<?> ua = uiAutomation.getClass();
        Method noWait = Reflect.optional(ua, "injectInputEvent", InputEvent.class, boolean.class, boolean.class);
        if (noWait != null) return new InputInjection(uiAutomation, noWait, Path.UI_AUTOMATION_NO_ANIMATION_WAIT);
        return new InputInjection(uiAutomation, Reflect.method(ua, "injectInputEvent", InputEvent.class, boolean.class),
            Path.UI_AUTOMATION_ASYNC);
    }

    private static InputInjection throughInputService(Object service) {
        Class<?> c = service.getClass();
        Method toTarget = Reflect.optional(c, "injectInputEventToTarget", InputEvent.class, int.class, int.class);
        if (toTarget != null) return new InputInjection(service, toTarget, Path.INPUT_MANAGER_TO_TARGET);
        Method two = Reflect.optional(c, "injectInputEvent", InputEvent.class, int.class);
        if (two != null) return new InputInjection(service, two, Path.INPUT_MANAGER);
        Method vendor = Reflect.optional(c, "injectInputEvent", InputEvent.class, int.class, int.class);
        if (vendor != null) return new InputInjection(service, vendor, Path.INPUT_MANAGER_VENDOR_THIRD_INT);
        return null;
    }

    /** Hands the event to the input dispatcher; a refusal comes out as the platform's SecurityException. */
    public boolean inject(InputEvent event) throws MissingApi {
        return send(event, false);
    }

    /**
     * Injects the event and returns once the app has finished handling it (or the platform's
     * injection timeout passed: false). For a key whose effect must have happened before the caller
     * goes on, such as KEYCODE_PASTE before the clipboard is restored.
     */
    public boolean injectAndWait(InputEvent event) throws MissingApi {
        return send(event, true);
    }

    private boolean send(InputEvent event, boolean waitForApp) throws MissingApi {
        int mode = waitForApp ? MODE_WAIT_FOR_FINISH : MODE_ASYNC;
        Object verdict;
        switch (path) {
            case INPUT_MANAGER_TO_TARGET: verdict = Reflect.invoke(method, target, event, mode, ANY_WINDOW); break;
            case INPUT_MANAGER: verdict = Reflect.invoke(method, target, event, mode); break;
            case INPUT_MANAGER_VENDOR_THIRD_INT: verdict = Reflect.invoke(method, target, event, mode, 0); break;
            case UI_AUTOMATION_NO_ANIMATION_WAIT:
                verdict = Reflect.invoke(method, target, event, waitForApp, false);
                break;
            default: verdict = Reflect.invoke(method, target, event, waitForApp); break;
        }
        return Boolean.TRUE.equals(verdict);
    }
}
