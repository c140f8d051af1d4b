package android.os;

/** Compile-only stub of android.os.PersistableBundle (API 21). */
public final class PersistableBundle extends BaseBundle {
    public PersistableBundle() { throw new RuntimeException("Stub!"); }
    public PersistableBundle(PersistableBundle bundle) { throw new RuntimeException("Stub!"); }
}
