package android.os;

/** Compile-only stub of android.os.Looper. */
public final class Looper {
    Looper() { throw new RuntimeException("Stub!"); }
    public static void prepare() { throw new RuntimeException("Stub!"); }
    public static void prepareMainLooper() { throw new RuntimeException("Stub!"); }
    public static Looper getMainLooper() { throw new RuntimeException("Stub!"); }
    public static void loop() { throw new RuntimeException("Stub!"); }
    public static Looper myLooper() { throw new RuntimeException("Stub!"); }
    public void quit() { throw new RuntimeException("Stub!"); }
    public void quitSafely() { throw new RuntimeException("Stub!"); }
}
