package android.view;

/** Compile-only stub of android.view.InputEvent. */
public abstract class InputEvent {
    InputEvent() { throw new RuntimeException("Stub!"); }
    public abstract int getSource();
}
