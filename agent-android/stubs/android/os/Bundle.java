package android.os;

/** Compile-only stub of android.os.Bundle. */
public final class Bundle {
    public Bundle() { throw new RuntimeException("Stub!"); }
    public void putCharSequence(String key, CharSequence value) { throw new RuntimeException("Stub!"); }
    public CharSequence getCharSequence(String key) { throw new RuntimeException("Stub!"); }
}
