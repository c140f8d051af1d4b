package dev.mobileagent.agent.android;

import android.net.LocalServerSocket;
import android.net.LocalSocket;
import dev.mobileagent.agent.platform.Transport;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/** The abstract unix socket NAME (LocalServerSocket), peers identified by SO_PEERCRED. */
final class AndroidTransport implements Transport {
    private final LocalServerSocket server;
    private volatile boolean closed;

    AndroidTransport(String name) throws IOException {
        server = new LocalServerSocket(name);
    }

    @Override
    public Peer accept() throws IOException {
        if (closed) throw new IOException("closed");
        final LocalSocket s = server.accept();
        return new Peer() {
            @Override public int uid() throws IOException { return s.getPeerCredentials().getUid(); }
            @Override public InputStream in() throws IOException { return s.getInputStream(); }
            @Override public OutputStream out() throws IOException { return s.getOutputStream(); }
            /** SO_RCVTIMEO and SO_SNDTIMEO both (LocalSocketImpl.setOption). */
            @Override public void setTimeoutsMs(int ms) throws IOException { s.setSoTimeout(ms); }
            @Override public void close() {
                try {
                    s.close();
                } catch (IOException ignored) {
                    // already closed by the peer
                }
            }
        };
    }

    @Override
    public void close() {
        closed = true;
        try {
            server.close();
        } catch (IOException ignored) {
            // the process exits next
        }
    }
}
