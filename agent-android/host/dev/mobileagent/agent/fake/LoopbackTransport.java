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
 * peer uid is what the test configures (2000, the shell user, unless a test plays root). Its
 * timeouts are LocalSocket's: the read bound is the send bound too (LocalSocketImpl.setOption sets
 * SO_SNDTIMEO with SO_RCVTIMEO); {@link #stallWrites} plays a host that reads nothing (its socket
 * full), where a send blocks until that bound and fails.
 */
public final class LoopbackTransport implements Transport {
    private final ServerSocket server;
    private volatile int peerUid = 2000;
    private final Object stall = new Object();
    private boolean stalled;

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

    /** Every peer stops reading (true) or reads again (false). */
    public void stallWrites(boolean on) {
        synchronized (stall) {
            stalled = on;
            stall.notifyAll();
        }
    }

    /** Waits while writes are stalled, at most {@code timeoutMs} (0: forever); false when still stalled. */
    private boolean awaitDrained(int timeoutMs) {
        long end = System.nanoTime() + timeoutMs * 1_000_000L;
        synchronized (stall) {
            while (stalled) {
                long left = (end - System.nanoTime()) / 1_000_000L;
                if (timeoutMs > 0 && left <= 0) return false;
                try {
                    stall.wait(timeoutMs > 0 ? left : 0);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
            return true;
        }
    }

    @Override
    public Peer accept() throws IOException {
        final Socket s = server.accept();
        final int uid = peerUid;
        s.setTcpNoDelay(true);
        final int[] timeout = {0};
        final OutputStream raw = s.getOutputStream();
        final OutputStream out = new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                write(new byte[] {(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                if (!awaitDrained(timeout[0])) throw new IOException("the send made no progress for " + timeout[0] + " ms (SO_SNDTIMEO)");
                raw.write(b, off, len);
            }

            @Override
            public void flush() throws IOException {
                raw.flush();
            }
        };
        return new Peer() {
            @Override public int uid() { return uid; }
            @Override public InputStream in() throws IOException { return s.getInputStream(); }
            @Override public OutputStream out() { return out; }
            @Override public void setTimeoutsMs(int ms) throws IOException {
                s.setSoTimeout(ms);
                timeout[0] = ms;
            }
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
