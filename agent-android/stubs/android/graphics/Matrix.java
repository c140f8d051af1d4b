package android.graphics;

/** Compile-only stub of android.graphics.Matrix. */
public class Matrix {
    public Matrix() { throw new RuntimeException("Stub!"); }
    public boolean postRotate(float degrees) { throw new RuntimeException("Stub!"); }
}
