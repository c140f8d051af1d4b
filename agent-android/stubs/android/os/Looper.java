package android.os;

/** Compile-only stub of android.os.Looper. */
public final class Looper {
    Looper() { throw new RuntimeException("Stub!"); }
    public static void prepareMainLooper() { throw new RuntimeException("Stub!"); }
    public static void loop() { throw new RuntimeException("Stub!"); }
}
