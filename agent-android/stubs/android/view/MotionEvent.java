package android.view;

/** Compile-only stub of android.view.MotionEvent. */
public final class MotionEvent extends InputEvent {
    public static final int ACTION_DOWN = 0;
    public static final int ACTION_UP = 1;
    public static final int ACTION_MOVE = 2;
    MotionEvent() { throw new RuntimeException("Stub!"); }
    public static MotionEvent obtain(long downTime, long eventTime, int action, float x, float y, int metaState) { throw new RuntimeException("Stub!"); }
    public final int getSource() { throw new RuntimeException("Stub!"); }
    public final void setSource(int source) { throw new RuntimeException("Stub!"); }
    public final void recycle() { throw new RuntimeException("Stub!"); }
}
