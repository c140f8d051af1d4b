package android.os;

/** Compile-only stub of android.os.Process (setArgV0 is hidden: the wrappers call it by reflection). */
public class Process {
    public Process() { throw new RuntimeException("Stub!"); }
    public static final int myPid() { throw new RuntimeException("Stub!"); }
    public static final int myUid() { throw new RuntimeException("Stub!"); }
    public static final void killProcess(int pid) { throw new RuntimeException("Stub!"); }
}
