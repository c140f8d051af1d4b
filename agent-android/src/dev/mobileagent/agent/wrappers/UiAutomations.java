package dev.mobileagent.agent.wrappers;

import android.app.UiAutomation;
import android.os.Looper;
import java.lang.reflect.Constructor;
import java.lang.reflect.Method;

/**
 * Obtaining UI automation without instrumentation, as the shell user: the hidden
 * UiAutomation(Looper, IUiAutomationConnection) constructor over a new UiAutomationConnection, then
 * connectWithTimeout(flags, ms) where the release has it, else connect(flags) (API 24+), else
 * connect(). disconnect() releases the single UI-automation slot.
 */
public final class UiAutomations {
    private UiAutomations() {}

    public static UiAutomation create(Looper looper) throws MissingApi {
        Class<?> connectionClass = Reflect.type("android.app.UiAutomationConnection");
        Class<?> connectionIface = Reflect.type("android.app.IUiAutomationConnection");
        try {
            Constructor<?> cc = connectionClass.getDeclaredConstructor();
            cc.setAccessible(true);
            Object connection = cc.newInstance();
            Constructor<UiAutomation> uc = UiAutomation.class.getDeclaredConstructor(Looper.class, connectionIface);
            uc.setAccessible(true);
            return uc.newInstance(looper, connection);
        } catch (ReflectiveOperationException | SecurityException e) {
            throw new MissingApi("UiAutomation(Looper, IUiAutomationConnection)", e.getCause() != null ? e.getCause() : e);
        }
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

    public static void disconnect(UiAutomation ua) throws MissingApi {
        Reflect.invoke(Reflect.method(UiAutomation.class, "disconnect"), ua);
    }
}
