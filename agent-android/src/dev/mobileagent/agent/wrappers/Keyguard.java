package dev.mobileagent.agent.wrappers;

import java.lang.reflect.Method;

/**
 * Whether the device is locked, as ClipboardService asks before every read: its isDeviceLocked
 * calls KeyguardManager.isDeviceLocked(userId), which is ITrustManager.isDeviceLocked over the
 * "trust" service (hidden; core/java/android/app/trust/ITrustManager.aidl,
 * services/core/java/com/android/server/trust/TrustManagerService.java). The shapes: (int userId),
 * Android 5.1 to 13; (int userId, int deviceId), Android 14+ (virtual devices). The first method of
 * that name whose parameters are all ints is called with zeros (user 0, the default device).
 */
public final class Keyguard {
    private final Object service;

    private Keyguard(Object service) {
        this.service = service;
    }

    public static Keyguard connect() throws MissingApi {
        Class<?> sm = Reflect.type("android.os.ServiceManager");
        Object binder = Reflect.invoke(Reflect.method(sm, "getService", String.class), null, "trust");
        if (binder == null) throw new MissingApi("the trust service", null);
        Class<?> stub = Reflect.type("android.app.trust.ITrustManager$Stub");
        Class<?> ibinder = Reflect.type("android.os.IBinder");
        return over(Reflect.invoke(Reflect.method(stub, "asInterface", ibinder), null, binder));
    }

    /** The calls over any object with ITrustManager's isDeviceLocked: the service's proxy, or a test's double. */
    public static Keyguard over(Object service) {
        return new Keyguard(service);
    }

    /** Whether user 0's device is locked (the keyguard shows and is not dismissed). */
    public boolean deviceLocked() throws MissingApi {
        for (Method m : service.getClass().getMethods()) {
            if (!m.getName().equals("isDeviceLocked") || !allInts(m.getParameterTypes())) continue;
            m.setAccessible(true);
            Object[] zeros = new Object[m.getParameterTypes().length];
            for (int i = 0; i < zeros.length; i++) zeros[i] = 0;
            return Boolean.TRUE.equals(Reflect.invoke(m, service, zeros));
        }
        throw new MissingApi("ITrustManager.isDeviceLocked", null);
    }

    static boolean allInts(Class<?>[] types) {
        for (Class<?> t : types) if (t != int.class) return false;
        return true;
    }
}
