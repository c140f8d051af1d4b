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

        /**
         * The read and the send bound: a read, or a send making no progress, blocked longer fails
         * with an IOException (0: none). Both, because on Android LocalSocket.setSoTimeout sets
         * SO_RCVTIMEO and SO_SNDTIMEO alike (core/java/android/net/LocalSocketImpl.java, setOption
         * SO_TIMEOUT: "The option must set both send and receive timeouts"): a host that has read
         * nothing for that long is as gone as one that has sent nothing.
         */
        void setTimeoutsMs(int ms) throws IOException;

        void close();
    }
}
