package android.os;

/** Compile-only stub of android.os.HandlerThread. */
public class HandlerThread extends Thread {
    public HandlerThread(String name) { throw new RuntimeException("Stub!"); }
    public Looper getLooper() { throw new RuntimeException("Stub!"); }
    public boolean quitSafely() { throw new RuntimeException("Stub!"); }
}
