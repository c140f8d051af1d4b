package android.graphics;

/** Compile-only stub of android.graphics.BitmapFactory. */
public class BitmapFactory {
    public BitmapFactory() { throw new RuntimeException("Stub!"); }
    public static Bitmap decodeByteArray(byte[] data, int offset, int length) { throw new RuntimeException("Stub!"); }
}
