package android.view;

/** Compile-only stub of android.view.KeyEvent. */
public class KeyEvent extends InputEvent {
    public static final int ACTION_DOWN = 0;
    public static final int ACTION_UP = 1;
    public KeyEvent(long downTime, long eventTime, int action, int code, int repeat, int metaState, int deviceId,
                    int scancode, int flags, int source) { throw new RuntimeException("Stub!"); }
    public final int getSource() { throw new RuntimeException("Stub!"); }
    public final int getAction() { throw new RuntimeException("Stub!"); }
    public final int getKeyCode() { throw new RuntimeException("Stub!"); }
    public final int getMetaState() { throw new RuntimeException("Stub!"); }
}
