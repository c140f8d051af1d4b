package dev.mobileagent.agent.wrappers;

import android.app.UiAutomation;
import android.os.Looper;
import java.lang.reflect.Constructor;
import java.lang.reflect.Method;

/**
 * Obtaining UI automation without instrumentation, as the shell user: the hidden
 * UiAutomation(Looper, IUiAutomationConnection) constructor over a new UiAutomationConnection, then
 * connectWithTimeout(flags, ms) where the release has it, else connect(flags) (API 24+), else
 * connect().
 *
 * Releasing: UiAutomation.disconnect() would restore the rotation state UiAutomationConnection saw at
 * connect (restoreRotationStateLocked: freezeRotation of the rotation then, or thawRotation), which
 * undoes any rotation the user or a test set meanwhile. So the agent unregisters its client from
 * the accessibility manager directly (IAccessibilityManager.unregisterUiTestAutomationService, what
 * disconnect does besides the rotation), and where that is not possible leaves the slot to the
 * process's death: UiAutomationManager's death recipient on the connection's token destroys the
 * service when the process exits.
 */
public final class UiAutomations {
    private UiAutomations() {}

    public static UiAutomation create(Looper looper) throws MissingApi {
        Class<?> connectionClass = Reflect.type("android.app.UiAutomationConnection");
        Class<?> connectionIface = Reflect.type("android.app.IUiAutomationConnection");
        Object connection;
        try {
            Constructor<?> cc = connectionClass.getDeclaredConstructor();
            cc.setAccessible(true);
            connection = cc.newInstance();
        } catch (ReflectiveOperationException | SecurityException e) {
            throw new MissingApi("UiAutomationConnection()", e.getCause() != null ? e.getCause() : e);
        }
        Throwable last = null;
        // (Looper, IUiAutomationConnection) on most releases; a constructor that also takes a Context
        // (later releases) gets a null one: nothing is read from it when a Looper is given.
        for (Constructor<?> c : UiAutomation.class.getDeclaredConstructors()) {
            Class<?>[] types = c.getParameterTypes();
            Object[] args = new Object[types.length];
            boolean hasLooper = false;
            boolean hasConnection = false;
            boolean usable = true;
            for (int i = 0; i < types.length; i++) {
                if (types[i] == Looper.class) {
                    args[i] = looper;
                    hasLooper = true;
                } else if (types[i] == connectionIface) {
                    args[i] = connection;
                    hasConnection = true;
                } else if (types[i].getName().equals("android.content.Context")) {
                    args[i] = null;
                } else {
                    usable = false;
                }
            }
            if (!usable || !hasLooper || !hasConnection) continue;
            try {
                c.setAccessible(true);
                return (UiAutomation) c.newInstance(args);
            } catch (ReflectiveOperationException | RuntimeException e) {
                last = e.getCause() != null ? e.getCause() : e;
            }
        }
        throw new MissingApi("UiAutomation(Looper, IUiAutomationConnection)", last);
    }

    /**
     * Connects with the flags. A failure the platform reports (for example "UiAutomationService ...
     * already registered!") comes out as an unchecked exception carrying the platform's whole message.
     */
    public static void connect(UiAutomation ua, int flags, long timeoutMs) throws MissingApi {
        Method withTimeout = Reflect.optional(UiAutomation.class, "connectWithTimeout", int.class, long.class);
        if (withTimeout != null) {
            Reflect.invoke(withTimeout, ua, flags, timeoutMs);
            return;
        }
        Method withFlags = Reflect.optional(UiAutomation.class, "connect", int.class);
        if (withFlags != null) {
            Reflect.invoke(withFlags, ua, flags);
            return;
        }
        Reflect.invoke(Reflect.method(UiAutomation.class, "connect"), ua);
    }

    /** Unregisters the automation client without touching the rotation (never disconnect()). */
    public static void unregister(UiAutomation ua) throws MissingApi {
        Object client = Reflect.field(ua, "mClient");
        Class<?> sm = Reflect.type("android.os.ServiceManager");
        Object binder = Reflect.invoke(Reflect.method(sm, "getService", String.class), null, "accessibility");
        if (binder == null) throw new MissingApi("the accessibility service", null);
        Class<?> stub = Reflect.type("android.view.accessibility.IAccessibilityManager$Stub");
        Object manager = Reflect.invoke(Reflect.method(stub, "asInterface", Reflect.type("android.os.IBinder")), null, binder);
        Class<?> clientType = Reflect.type("android.accessibilityservice.IAccessibilityServiceClient");
        Reflect.invoke(Reflect.method(manager.getClass(), "unregisterUiTestAutomationService", clientType), manager, client);
    }
}
