package dev.mobileagent.agent.wrappers;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertSame;

import android.content.ClipData;
import dev.mobileagent.agent.platform.Platform;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.Test;

/**
 * IClipboard's shapes by release and vendor (IClipboard.aidl; scrcpy's ClipboardManager wrapper
 * history: 8b33c6c1, 82cb8ab8, 57f879d6, f77e1c47, 5ce8672e, 5187f725, 746eaea5, 79242957) filled by
 * type, on doubles with those signatures; and what the restore does with an empty clipboard and
 * with a clip the shell may not read (ClipboardService: getPrimaryClip null, hasPrimaryClip true).
 */
public class ClipboardsTest {
    static final String SHELL = "com.android.shell";

    /** A double that records each call as its name followed by its arguments. */
    public static class Recording {
        public final List<List<Object>> calls = Collections.synchronizedList(new ArrayList<List<Object>>());
        ClipData clip;
        boolean has;

        Object record(String name, Object... args) {
            List<Object> call = new ArrayList<>();
            call.add(name);
            call.addAll(Arrays.asList(args));
            calls.add(call);
            return null;
        }

        List<String> names() {
            List<String> out = new ArrayList<>();
            for (List<Object> c : calls) out.add((String) c.get(0));
            return out;
        }
    }

    /** Android 14 to 16: package, attribution tag, user, device. */
    public static class Android14 extends Recording {
        public ClipData getPrimaryClip(String pkg, String tag, int user, int device) {
            record("get", pkg, tag, user, device);
            return clip;
        }

        public void setPrimaryClip(ClipData c, String pkg, String tag, int user, int device) {
            record("set", c, pkg, tag, user, device);
        }

        public void clearPrimaryClip(String pkg, String tag, int user, int device) {
            record("clear", pkg, tag, user, device);
        }

        public boolean hasPrimaryClip(String pkg, String tag, int user, int device) {
            record("has", pkg, tag, user, device);
            return has;
        }
    }

    /** vivo/iQOO: a trailing "userOperate" boolean (scrcpy 5ce8672e, #4492; 746eaea5, #4703). */
    public static class IqooUserOperate extends Recording {
        public ClipData getPrimaryClip(String pkg, String tag, int user, int device, boolean userOperate) {
            record("get", pkg, tag, user, device, userOperate);
            return clip;
        }

        public void setPrimaryClip(ClipData c, String pkg, String tag, int user, int device, boolean userOperate) {
            record("set", c, pkg, tag, user, device, userOperate);
        }
    }

    /** iQOO's 7-argument getPrimaryClip (scrcpy 5187f725, #4589). */
    public static class IqooSevenArguments extends Recording {
        public ClipData getPrimaryClip(String pkg, String a, String b, String c, int user, int device,
                boolean userOperate) {
            record("get", pkg, a, b, c, user, device, userOperate);
            return clip;
        }
    }

    /** Honor: (String, int, String) (scrcpy f77e1c47, #3885) and a trailing String (79242957, #5073). */
    public static class Honor extends Recording {
        public ClipData getPrimaryClip(String pkg, int user, String extra) {
            record("get", pkg, user, extra);
            return clip;
        }
    }

    public static class HonorTrailingString extends Recording {
        public ClipData getPrimaryClip(String pkg, String tag, int user, int device, String extra) {
            record("get", pkg, tag, user, device, extra);
            return clip;
        }
    }

    /** A vendor whose service refuses the shell's read outright. */
    public static class Refusing extends Android14 {
        @Override
        public ClipData getPrimaryClip(String pkg, String tag, int user, int device) {
            record("get", pkg, tag, user, device);
            throw new SecurityException("Permission Denial: reading the clipboard");
        }
    }

    static final UnaryOperator<ClipData> AS_IS = c -> c;

    /** A ClipData on the host, where the stub's constructors throw. */
    static ClipData aClip() throws Exception {
        Class<?> unsafeType = Class.forName("sun.misc.Unsafe");
        Field f = unsafeType.getDeclaredField("theUnsafe");
        f.setAccessible(true);
        Object unsafe = f.get(null);
        return (ClipData) unsafeType.getMethod("allocateInstance", Class.class).invoke(unsafe, ClipData.class);
    }

    @Test
    public void android14sShapeGetsTheShellPackageNoTagUserZeroAndTheDefaultDevice() throws Exception {
        Android14 s = new Android14();
        Clipboards.over(s).get();
        assertEquals(Arrays.asList("get", SHELL, null, 0, 0), s.calls.get(0));
    }

    @Test
    public void iqoosTrailingUserOperateBooleanIsFilledWithTrueOnReadAndWrite() throws Exception {
        IqooUserOperate s = new IqooUserOperate();
        Clipboards c = Clipboards.over(s);
        c.get();
        c.set(null);
        assertEquals(Arrays.asList("get", SHELL, null, 0, 0, true), s.calls.get(0));
        assertEquals(Arrays.asList("set", null, SHELL, null, 0, 0, true), s.calls.get(1));
    }

    @Test
    public void iqoosSevenArgumentReadIsFilled() throws Exception {
        IqooSevenArguments s = new IqooSevenArguments();
        Clipboards.over(s).get();
        assertEquals(Arrays.asList("get", SHELL, null, null, null, 0, 0, true), s.calls.get(0));
    }

    @Test
    public void honorsShapesAreFilled() throws Exception {
        Honor a = new Honor();
        Clipboards.over(a).get();
        assertEquals(Arrays.asList("get", SHELL, 0, null), a.calls.get(0));
        HonorTrailingString b = new HonorTrailingString();
        Clipboards.over(b).get();
        assertEquals(Arrays.asList("get", SHELL, null, 0, 0, null), b.calls.get(0));
    }

    @Test
    public void aParameterTypeNoReleaseHasIsAMissingApi() {
        assertNull(Clipboards.fill(new Class<?>[] {String.class, long.class}, null));
        try {
            Clipboards.over(new Object()).get();
        } catch (MissingApi e) {
            assertEquals(true, e.getMessage().startsWith("IClipboard.getPrimaryClip is not available"));
            return;
        }
        throw new AssertionError("no MissingApi");
    }

    @Test
    public void aClipTheShellCannotReadIsLeftAloneOnRestore() throws Exception {
        // the old agent took the null read for an empty clipboard and cleared it after the paste
        Android14 s = new Android14();
        s.has = true;
        Clipboards c = Clipboards.over(s);
        Object saved = c.save();
        assertSame(Platform.UNREADABLE_CLIP, saved);
        c.set(null); // the paste's clip
        c.restore(saved, AS_IS);
        assertEquals("no clearPrimaryClip, no setPrimaryClip after the paste's",
            Arrays.asList("get", "has", "set"), s.names());
    }

    @Test
    public void aReadTheServiceRefusesIsAClipTheShellCannotRead() throws Exception {
        assertSame(Platform.UNREADABLE_CLIP, Clipboards.over(new Refusing()).save());
    }

    @Test
    public void anEmptyClipboardIsEmptyAgainAfterTheRestore() throws Exception {
        Android14 s = new Android14();
        Clipboards c = Clipboards.over(s);
        Object saved = c.save();
        assertNull(saved);
        c.restore(saved, AS_IS);
        assertEquals(Arrays.asList("get", "has", "clear"), s.names());
    }

    @Test
    public void theUsersClipIsPutBackThroughUnseen() throws Exception {
        Android14 s = new Android14();
        s.clip = aClip();
        ClipData marked = aClip();
        Clipboards c = Clipboards.over(s);
        Object saved = c.save();
        assertSame(s.clip, saved);
        c.restore(saved, clip -> marked);
        assertEquals(Arrays.asList("get", "set"), s.names());
        assertSame(marked, s.calls.get(1).get(1));
    }

    @Test
    public void booleansAreTrueIntsZeroAndOnlyTheFirstStringIsThePackage() {
        Class<?>[] types = {String.class, String.class, int.class, boolean.class, ClipData.class};
        Object[] args = Clipboards.fill(types, null);
        assertArrayEquals(new Object[] {SHELL, null, 0, true, null}, args);
    }
}
