package android.content;

/** Compile-only stub of android.content.ClipData. */
public class ClipData {
    ClipData() { throw new RuntimeException("Stub!"); }
    public static ClipData newPlainText(CharSequence label, CharSequence text) { throw new RuntimeException("Stub!"); }
    public ClipDescription getDescription() { throw new RuntimeException("Stub!"); }
    public int getItemCount() { throw new RuntimeException("Stub!"); }
    public ClipData.Item getItemAt(int index) { throw new RuntimeException("Stub!"); }

    /** Compile-only stub of android.content.ClipData.Item. */
    public static class Item {
        Item() { throw new RuntimeException("Stub!"); }
        public CharSequence getText() { throw new RuntimeException("Stub!"); }
    }
}
