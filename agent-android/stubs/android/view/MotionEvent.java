package android.view;

/** Compile-only stub of android.view.MotionEvent. */
public final class MotionEvent extends InputEvent {
    public static final int ACTION_DOWN = 0;
    public static final int ACTION_UP = 1;
    public static final int ACTION_MOVE = 2;
    public static final int ACTION_POINTER_DOWN = 5;
    public static final int ACTION_POINTER_UP = 6;
    public static final int ACTION_POINTER_INDEX_SHIFT = 8;
    public static final int TOOL_TYPE_FINGER = 1;
    MotionEvent() { throw new RuntimeException("Stub!"); }
    public static MotionEvent obtain(long downTime, long eventTime, int action, float x, float y, int metaState) { throw new RuntimeException("Stub!"); }
    public static MotionEvent obtain(long downTime, long eventTime, int action, int pointerCount, PointerProperties[] pointerProperties, PointerCoords[] pointerCoords, int metaState, int buttonState, float xPrecision, float yPrecision, int deviceId, int edgeFlags, int source, int flags) { throw new RuntimeException("Stub!"); }
    public final int getSource() { throw new RuntimeException("Stub!"); }
    public final void setSource(int source) { throw new RuntimeException("Stub!"); }
    public final void recycle() { throw new RuntimeException("Stub!"); }

    /** Compile-only stub of android.view.MotionEvent.PointerProperties. */
    public static final class PointerProperties {
        public int id;
        public int toolType;
        public PointerProperties() { throw new RuntimeException("Stub!"); }
    }

    /** Compile-only stub of android.view.MotionEvent.PointerCoords. */
    public static final class PointerCoords {
        public float x;
        public float y;
        public float pressure;
        public float size;
        public PointerCoords() { throw new RuntimeException("Stub!"); }
    }
}
