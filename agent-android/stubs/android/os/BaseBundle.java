package android.os;

/** Compile-only stub of android.os.BaseBundle (API 21; putBoolean is declared here since API 22). */
public class BaseBundle {
    BaseBundle() { throw new RuntimeException("Stub!"); }
    public void putBoolean(String key, boolean value) { throw new RuntimeException("Stub!"); }
}
