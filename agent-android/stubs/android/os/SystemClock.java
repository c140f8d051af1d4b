package android.os;

/** Compile-only stub of android.os.SystemClock. */
public final class SystemClock {
    SystemClock() { throw new RuntimeException("Stub!"); }
    public static long uptimeMillis() { throw new RuntimeException("Stub!"); }
}
