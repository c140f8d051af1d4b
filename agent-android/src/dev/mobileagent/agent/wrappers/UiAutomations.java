package dev.mobileagent.agent.wrappers;

import android.app.UiAutomation;
import android.os.Looper;
import java.lang.reflect.Constructor;
import java.lang.reflect.Method;

/**
 * Obtaining UI automation without instrumentation, as the shell user: the hidden
 * UiAutomation(Looper, IUiAutomationConnection) constructor over a new UiAutomationConnection, then
 * connectWithTimeout(flags, ms) where the release has it, else connect(flags), else connect().
 *
 * UiAutomation's constructors (core/java/android/app/UiAutomation.java): (Looper,
 * IUiAutomationConnection) on every release from Android 4.3 (API 18), deprecated since the
 * display-aware ones came with visible background users (UserManager.isVisibleBackgroundUsersSupported,
 * Android 14): (Context,
 * IUiAutomationConnection), which takes the Context's display and main looper, and the private
 * (int displayId, Looper, IUiAutomationConnection) that both call. No constructor takes a Context and
 * a Looper; the agent has no Context, so it uses (Looper, IUiAutomationConnection), as
 * devicekit-android's UiAutomationFactory.kt does.
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
        try {
            Constructor<UiAutomation> c = UiAutomation.class.getDeclaredConstructor(Looper.class, connectionIface);
            c.setAccessible(true);
            return c.newInstance(looper, connection);
        } catch (ReflectiveOperationException | RuntimeException e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            throw new MissingApi("UiAutomation(Looper, IUiAutomationConnection)", cause);
        }
    }

    /**
     * Connects with the flags. A failure the platform reports (for example "UiAutomationService ...
     * already registered!") comes out as an unchecked exception carrying the platform's whole message.
     * connectWithTimeout(int, long): Android 12 (API 31) on, where connect(int) became a call to it
     * with a fixed timeout; connect(int flags): Android 7.0 (API 24) on, the first with flags
     * (FLAG_DONT_SUPPRESS_ACCESSIBILITY_SERVICES); connect(): API 18 to 23, without flags.
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
