package dev.mobileagent.agent.wrappers;

import android.content.ClipData;
import java.lang.reflect.Method;

/**
 * The primary clip through IClipboard (hidden; an app_process has no Context for ClipboardManager),
 * as the shell package. The methods' parameters differ by release (package; user; attribution tag,
 * API 31+; device id, API 34+), so each call fills them by type: the first String is the package,
 * later Strings null, ints 0 (user 0, the default device), the ClipData the clip.
 */
public final class Clipboards {
    static final String SHELL_PACKAGE = "com.android.shell";
    private final Object service;

    private Clipboards(Object service) {
        this.service = service;
    }

    public static Clipboards connect() throws MissingApi {
        Class<?> sm = Reflect.type("android.os.ServiceManager");
        Object binder = Reflect.invoke(Reflect.method(sm, "getService", String.class), null, "clipboard");
        if (binder == null) throw new MissingApi("the clipboard service", null);
        Class<?> stub = Reflect.type("android.content.IClipboard$Stub");
        Class<?> ibinder = Reflect.type("android.os.IBinder");
        Object service = Reflect.invoke(Reflect.method(stub, "asInterface", ibinder), null, binder);
        return new Clipboards(service);
    }

    public ClipData get() throws MissingApi {
        return (ClipData) call("getPrimaryClip", null);
    }

    public void set(ClipData clip) throws MissingApi {
        call("setPrimaryClip", clip);
    }

    public void clear() throws MissingApi {
        call("clearPrimaryClip", null);
    }

    private Object call(String name, ClipData clip) throws MissingApi {
        for (Method m : service.getClass().getMethods()) {
            if (!m.getName().equals(name)) continue;
            Class<?>[] types = m.getParameterTypes();
            Object[] args = new Object[types.length];
            boolean strings = false;
            for (int i = 0; i < types.length; i++) {
                if (types[i] == String.class) {
                    args[i] = strings ? null : SHELL_PACKAGE;
                    strings = true;
                } else if (types[i] == int.class) {
                    args[i] = 0;
                } else if (types[i] == ClipData.class) {
                    args[i] = clip;
                } else {
                    args = null;
                    break;
                }
            }
            if (args != null) {
                m.setAccessible(true);
                return Reflect.invoke(m, service, args);
            }
        }
        throw new MissingApi("IClipboard." + name, null);
    }
}
