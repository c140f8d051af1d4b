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
 *   <li>IInputManager.injectInputEvent(event, INJECT_INPUT_EVENT_MODE_ASYNC) from the "input"
 *       service, as scrcpy's server does (the shell user holds INJECT_EVENTS): no window manager
 *       sync at all; a variant with a third int (a target uid, some vendors) is given 0;</li>
 *   <li>UiAutomation.injectInputEvent(event, false, false) (hidden, API 34+): asynchronous, no
 *       animation wait (the window-info sync around DOWN and UP remains);</li>
 *   <li>UiAutomation.injectInputEvent(event, false): asynchronous (below API 34 no sync at all).</li>
 * </ol>
 * In every case the verdict means the event was handed to the input dispatcher, not that the app
 * handled it; a refusal is a SecurityException from the platform.
 */
public final class InputInjection {
    /** InputManager.INJECT_INPUT_EVENT_MODE_ASYNC (hidden). */
    static final int MODE_ASYNC = 0;

    /** How events go out. */
    public enum Path { INPUT_MANAGER, INPUT_MANAGER_WITH_UID, UI_AUTOMATION_NO_ANIMATION_WAIT, UI_AUTOMATION_ASYNC }

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
            Method two = Reflect.optional(inputService.getClass(), "injectInputEvent", InputEvent.class, int.class);
            if (two != null) return new InputInjection(inputService, two, Path.INPUT_MANAGER);
            Method three = Reflect.optional(inputService.getClass(), "injectInputEvent", InputEvent.class, int.class, int.class);
            if (three != null) return new InputInjection(inputService, three, Path.INPUT_MANAGER_WITH_UID);
        }
        Class<?> ua = uiAutomation.getClass();
        Method noWait = Reflect.optional(ua, "injectInputEvent", InputEvent.class, boolean.class, boolean.class);
        if (noWait != null) return new InputInjection(uiAutomation, noWait, Path.UI_AUTOMATION_NO_ANIMATION_WAIT);
        return new InputInjection(uiAutomation, Reflect.method(ua, "injectInputEvent", InputEvent.class, boolean.class),
            Path.UI_AUTOMATION_ASYNC);
    }

    /** Hands the event to the input dispatcher; a refusal comes out as the platform's SecurityException. */
    public boolean inject(InputEvent event) throws MissingApi {
        Object verdict;
        switch (path) {
            case INPUT_MANAGER: verdict = Reflect.invoke(method, target, event, MODE_ASYNC); break;
            case INPUT_MANAGER_WITH_UID: verdict = Reflect.invoke(method, target, event, MODE_ASYNC, 0); break;
            case UI_AUTOMATION_NO_ANIMATION_WAIT: verdict = Reflect.invoke(method, target, event, false, false); break;
            default: verdict = Reflect.invoke(method, target, event, false); break;
        }
        return Boolean.TRUE.equals(verdict);
    }
}
