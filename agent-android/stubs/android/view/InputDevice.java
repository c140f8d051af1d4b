package android.view;

/** Compile-only stub of android.view.InputDevice. */
public final class InputDevice {
    public static final int SOURCE_KEYBOARD = 257;
    public static final int SOURCE_TOUCHSCREEN = 4098;
    InputDevice() { throw new RuntimeException("Stub!"); }
}
