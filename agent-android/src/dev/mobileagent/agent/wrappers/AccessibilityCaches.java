package dev.mobileagent.agent.wrappers;

import android.app.UiAutomation;
import java.lang.reflect.Method;

/**
 * Clearing the accessibility framework's own node cache, so that a window the agent evicts is read
 * from the app again: a toolkit that sends no change events (Compose) leaves that cache stale too.
 * In this order: UiAutomation.clearCache() (hidden), which releases with a cache per connection
 * have; else AccessibilityInteractionClient.clearCache(int connectionId) (hidden), that per-connection
 * cache without UiAutomation's method; else AccessibilityInteractionClient.clearCache() (hidden), the
 * one cache of Android 10 and 11 (their UiAutomation.setServiceInfo calls it:
 * core/java/android/app/UiAutomation.java as mirrored in aosp-mirror/platform_frameworks_base). The
 * releases that added the first two are not verified here.
 */
public final class AccessibilityCaches {
    private AccessibilityCaches() {}

    public static void clear(UiAutomation ua) throws MissingApi {
        Method own = Reflect.optional(UiAutomation.class, "clearCache");
        if (own != null) {
            Reflect.invoke(own, ua);
            return;
        }
        Class<?> client = Reflect.type("android.view.accessibility.AccessibilityInteractionClient");
        Object instance = Reflect.invoke(Reflect.method(client, "getInstance"), null);
        Method byConnection = Reflect.optional(client, "clearCache", int.class);
        if (byConnection != null) {
            Object id = Reflect.invoke(Reflect.method(UiAutomation.class, "getConnectionId"), ua);
            Reflect.invoke(byConnection, instance, id);
            return;
        }
        Reflect.invoke(Reflect.method(client, "clearCache"), instance);
    }
}
