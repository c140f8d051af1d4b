package android.content;

import android.os.PersistableBundle;

/** Compile-only stub of android.content.ClipDescription. */
public class ClipDescription {
    ClipDescription() { throw new RuntimeException("Stub!"); }
    public PersistableBundle getExtras() { throw new RuntimeException("Stub!"); }
    public void setExtras(PersistableBundle extras) { throw new RuntimeException("Stub!"); }
}
