package android.os;

/** Compile-only stub of android.os.PersistableBundle. */
public final class PersistableBundle {
    public PersistableBundle() { throw new RuntimeException("Stub!"); }
    public PersistableBundle(PersistableBundle bundle) { throw new RuntimeException("Stub!"); }
    public void putBoolean(String key, boolean value) { throw new RuntimeException("Stub!"); }
}
