package dev.mobileagent.agent.fake;

import dev.mobileagent.agent.platform.Transport;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;

/**
 * The host JVM's transport: loopback TCP (127.0.0.1 only). TCP has no peer credentials, so the
 * peer uid is what the test configures (2000, the shell user, unless a test plays root).
 */
public final class LoopbackTransport implements Transport {
    private final ServerSocket server;
    private volatile int peerUid = 2000;

    public LoopbackTransport(int port) throws IOException {
        server = new ServerSocket();
        server.setReuseAddress(true);
        server.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), port), 16);
    }

    public int port() {
        return server.getLocalPort();
    }

    public void setPeerUid(int uid) {
        peerUid = uid;
    }

    @Override
    public Peer accept() throws IOException {
        final Socket s = server.accept();
        final int uid = peerUid;
        s.setTcpNoDelay(true);
        return new Peer() {
            @Override public int uid() { return uid; }
            @Override public InputStream in() throws IOException { return s.getInputStream(); }
            @Override public OutputStream out() throws IOException { return s.getOutputStream(); }
            @Override public void setReadTimeoutMs(int ms) throws IOException { s.setSoTimeout(ms); }
            @Override public void close() {
                try {
                    s.close();
                } catch (IOException ignored) {
                    // closing twice or a reset peer: nothing to do
                }
            }
        };
    }

    @Override
    public void close() {
        try {
            server.close();
        } catch (IOException ignored) {
            // already closed
        }
    }
}
