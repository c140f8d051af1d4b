package android.os;

/** Compile-only stub of android.os.Build. */
public class Build {
    public static final String MANUFACTURER = null;
    public static final String MODEL = null;

    public Build() { throw new RuntimeException("Stub!"); }

    public static class VERSION {
        public static final int SDK_INT = Integer.parseInt("0");
        public static final String RELEASE = null;
        public VERSION() { throw new RuntimeException("Stub!"); }
    }
}
