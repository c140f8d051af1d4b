package android.content;

/** Compile-only stub of android.content.ClipData. */
public class ClipData {
    ClipData() { throw new RuntimeException("Stub!"); }
    public static ClipData newPlainText(CharSequence label, CharSequence text) { throw new RuntimeException("Stub!"); }
    public ClipDescription getDescription() { throw new RuntimeException("Stub!"); }
}
