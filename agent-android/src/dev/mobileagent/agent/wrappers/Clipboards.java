package dev.mobileagent.agent.wrappers;

import android.content.ClipData;
import dev.mobileagent.agent.platform.Platform;
import java.lang.reflect.Method;
import java.util.function.UnaryOperator;

/**
 * The primary clip through IClipboard (hidden; an app_process has no Context for ClipboardManager),
 * as the shell package. The methods' parameters differ by release and by vendor, so each call takes
 * the first method of its name whose parameters it can fill, by type: the first String is the
 * package, later Strings null, ints 0 (user 0, the default device), booleans true, the ClipData the
 * clip. The shapes, as IClipboard.aidl and scrcpy's ClipboardManager wrapper
 * (server/src/main/java/com/genymobile/scrcpy/wrappers/ClipboardManager.java, its history) have them:
 * <ul>
 *   <li>(String pkg), Android 9 and before; (String, int userId), Android 10 (scrcpy 8b33c6c1);</li>
 *   <li>(String, String attributionTag, int), Android 12 (AOSP change 0e3e509b, scrcpy 82cb8ab8);</li>
 *   <li>(String, String, int, int deviceId), Android 14 (scrcpy 57f879d6);</li>
 *   <li>vendors: Honor's (String, int, String) (scrcpy f77e1c47, issue #3885) and (String, String,
 *       int, int, String) (79242957, #5073); vivo/iQOO's trailing boolean "userOperate" on
 *       getPrimaryClip (5ce8672e, #4492) and setPrimaryClip (746eaea5, #4703), and its 7-argument
 *       getPrimaryClip(String, String, String, String, int, int, boolean) (5187f725, #4589).</li>
 * </ul>
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
        return over(Reflect.invoke(Reflect.method(stub, "asInterface", ibinder), null, binder));
    }

    /** The calls over any object with IClipboard's methods: the service's proxy, or a host test's double. */
    public static Clipboards over(Object service) {
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

    /** Whether a primary clip is there, as the platform tells the shell. */
    public boolean has() throws MissingApi {
        return Boolean.TRUE.equals(call("hasPrimaryClip", null));
    }

    /**
     * What to put back after a paste: the user's clip, null for an empty clipboard, or
     * Platform.UNREADABLE_CLIP when a clip is there that the shell may not read. ClipboardService
     * (services/core/java/com/android/server/clipboard/ClipboardService.java) answers getPrimaryClip
     * null when clipboardAccessAllowed refuses with the READ_CLIPBOARD app op noted, or when it
     * cannot grant the clip's URIs, while hasPrimaryClip checks the op without noting it; a vendor's
     * service may throw SecurityException instead. While the device is locked both say nothing, so
     * the agent never saves then (Platform.clipboardReadRefusal: the keyguard is asked first, as
     * ClipboardService does), nor as root, whose read clears the clipboard.
     */
    public Object save() throws MissingApi {
        ClipData clip;
        try {
            clip = get();
        } catch (SecurityException e) {
            return Platform.UNREADABLE_CLIP;
        }
        if (clip != null) return clip;
        return hasOrFalse() ? Platform.UNREADABLE_CLIP : null;
    }

    private boolean hasOrFalse() {
        try {
            return has();
        } catch (MissingApi | RuntimeException e) {
            return false;
        }
    }

    /**
     * Puts back what {@link #save} returned, through {@code unseen} (the clip as it is set): an
     * empty clipboard is cleared again, a clip the shell could not read is left alone (clearing
     * would wipe the user's clip for good).
     */
    public void restore(Object saved, UnaryOperator<ClipData> unseen) throws MissingApi {
        if (saved == Platform.UNREADABLE_CLIP) return;
        if (saved == null) {
            clear();
            return;
        }
        set(unseen.apply((ClipData) saved));
    }

    private Object call(String name, ClipData clip) throws MissingApi {
        for (Method m : service.getClass().getMethods()) {
            if (!m.getName().equals(name)) continue;
            Object[] args = fill(m.getParameterTypes(), clip);
            if (args != null) {
                m.setAccessible(true);
                return Reflect.invoke(m, service, args);
            }
        }
        throw new MissingApi("IClipboard." + name, null);
    }

    /** The arguments for these parameter types, or null when one has a type no release uses. */
    static Object[] fill(Class<?>[] types, ClipData clip) {
        Object[] args = new Object[types.length];
        boolean packageGiven = false;
        for (int i = 0; i < types.length; i++) {
            if (types[i] == String.class) {
                args[i] = packageGiven ? null : SHELL_PACKAGE;
                packageGiven = true;
            } else if (types[i] == int.class) {
                args[i] = 0;
            } else if (types[i] == boolean.class) {
                args[i] = true;
            } else if (types[i] == ClipData.class) {
                args[i] = clip;
            } else {
                return null;
            }
        }
        return args;
    }
}
