package android.net;

import java.io.IOException;

/** Compile-only stub of android.net.LocalServerSocket (the name is in the abstract namespace). */
public class LocalServerSocket implements java.io.Closeable {
    public LocalServerSocket(String name) throws IOException { throw new RuntimeException("Stub!"); }
    public LocalSocket accept() throws IOException { throw new RuntimeException("Stub!"); }
    public void close() throws IOException { throw new RuntimeException("Stub!"); }
}
