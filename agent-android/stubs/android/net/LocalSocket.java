package android.net;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/** Compile-only stub of android.net.LocalSocket. */
public class LocalSocket implements java.io.Closeable {
    public LocalSocket() { throw new RuntimeException("Stub!"); }
    public InputStream getInputStream() throws IOException { throw new RuntimeException("Stub!"); }
    public OutputStream getOutputStream() throws IOException { throw new RuntimeException("Stub!"); }
    public Credentials getPeerCredentials() throws IOException { throw new RuntimeException("Stub!"); }
    public void setSoTimeout(int n) throws IOException { throw new RuntimeException("Stub!"); }
    public void close() throws IOException { throw new RuntimeException("Stub!"); }
}
