package dev.mobileagent.agent.platform;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/** Where hosts connect: the abstract socket on Android, loopback TCP on the host JVM. */
public interface Transport {
    /** Blocks until a peer connects; throws IOException once closed. */
    Peer accept() throws IOException;

    void close();

    /** One connected peer with its credentials. */
    interface Peer {
        /** The peer's uid (SO_PEERCRED on Android). */
        int uid() throws IOException;

        InputStream in() throws IOException;

        OutputStream out() throws IOException;

        /** A read deadline: a read blocked longer fails with an IOException (0: none). */
        void setReadTimeoutMs(int ms) throws IOException;

        void close();
    }
}
