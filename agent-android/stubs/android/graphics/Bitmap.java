package android.graphics;

import java.io.OutputStream;

/** Compile-only stub of android.graphics.Bitmap. */
public final class Bitmap {
    Bitmap() { throw new RuntimeException("Stub!"); }

    public enum CompressFormat { JPEG, PNG }

    public enum Config { ARGB_8888, HARDWARE }

    public static Bitmap createBitmap(Bitmap source, int x, int y, int width, int height, Matrix m, boolean filter) { throw new RuntimeException("Stub!"); }
    public Bitmap copy(Config config, boolean isMutable) { throw new RuntimeException("Stub!"); }
    public Config getConfig() { throw new RuntimeException("Stub!"); }
    public int getWidth() { throw new RuntimeException("Stub!"); }
    public int getHeight() { throw new RuntimeException("Stub!"); }
    public int getPixel(int x, int y) { throw new RuntimeException("Stub!"); }
    public boolean compress(CompressFormat format, int quality, OutputStream stream) { throw new RuntimeException("Stub!"); }
    public void recycle() { throw new RuntimeException("Stub!"); }
}
