package android.os;

/** Compile-only stub of android.os.Process (setArgV0 is hidden: the wrappers call it by reflection). */
public class Process {
    public static final int SHELL_UID = 2000;
    public Process() { throw new RuntimeException("Stub!"); }
    public static final int myPid() { throw new RuntimeException("Stub!"); }
    public static final int myUid() { throw new RuntimeException("Stub!"); }
    public static final void killProcess(int pid) { throw new RuntimeException("Stub!"); }
}
