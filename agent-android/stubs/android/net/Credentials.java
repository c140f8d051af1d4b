package android.net;

/** Compile-only stub of android.net.Credentials. */
public class Credentials {
    public Credentials(int pid, int uid, int gid) { throw new RuntimeException("Stub!"); }
    public int getUid() { throw new RuntimeException("Stub!"); }
}
