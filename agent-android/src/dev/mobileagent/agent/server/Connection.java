package dev.mobileagent.agent.server;

import dev.mobileagent.agent.core.AgentError;
import dev.mobileagent.agent.core.Deadline;
import dev.mobileagent.agent.protocol.Frames;
import dev.mobileagent.agent.protocol.Messages;
import dev.mobileagent.agent.protocol.ProtocolException;
import dev.mobileagent.agent.platform.Transport;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.json.JSONObject;

/** One peer: credentials, auth, hello/welcome, then requests, pings and events (docs/protocol.md §3-7). */
final class Connection {
    private final Server server;
    private final Transport.Peer peer;
    private final Object writeLock = new Object();
    private OutputStream out;
    private volatile boolean welcomed;
    private volatile boolean closed;
    private long seq;
    private long lastSentMs;
    private long pingNonce;

    Connection(Server server, Transport.Peer peer) {
        this.server = server;
        this.peer = peer;
    }

    void run() {
        try {
            out = peer.out();
            InputStream in = peer.in();
            if (!peerAllowed()) return;
            peer.setTimeoutsMs(server.config.handshakeTimeoutMs);
            if (!authenticate(in)) return;
            server.promote(this);
            send(server.config.hello());
            if (!welcome(in)) return;
            peer.setTimeoutsMs(server.config.livenessTimeoutMs);
            serve(in);
        } catch (ProtocolException e) {
            Server.LOG.info("protocol error: " + e.getMessage());
            closeWith("protocol_error");
        } catch (IOException e) {
            close();
        } catch (RuntimeException | Error e) {
            // nothing escapes this thread: RuntimeInit's handler would end the process
            Server.LOG.warning("connection failed: " + e);
            close();
        } finally {
            close();
            server.ended(this);
        }
    }

    private boolean peerAllowed() throws IOException {
        int uid = peer.uid();
        if (uid == server.config.allowedUid || uid == ServerConfig.ROOT_UID) return true;
        server.output.log("refused peer uid " + uid);
        sendQuietly(Messages.refused("peer_not_allowed", "peer not allowed"));
        close();
        return false;
    }

    /** An auth frame is a few dozen bytes: before it, nobody gets to make the agent hold 16 MiB. */
    static final int PRE_AUTH_LIMIT = 64 * 1024;

    private boolean authenticate(InputStream in) throws IOException, ProtocolException {
        JSONObject m = Frames.read(in, PRE_AUTH_LIMIT);
        if (m == null) return false;
        if (!"auth".equals(m.optString("type"))) throw new ProtocolException("the first frame must be auth, not " + m.optString("type"));
        Object token = m.opt("token");
        if (!(token instanceof String) || !tokenMatches((String) token)) {
            sendQuietly(Messages.refused("unauthorized", "unauthorized"));
            close();
            return false;
        }
        return true;
    }

    private boolean tokenMatches(String token) {
        String expected = server.config.token;
        if (expected == null || expected.isEmpty()) return false;
        return MessageDigest.isEqual(expected.getBytes(StandardCharsets.UTF_8), token.getBytes(StandardCharsets.UTF_8));
    }

    private boolean welcome(InputStream in) throws IOException, ProtocolException {
        JSONObject m = Frames.read(in);
        if (m == null) return false;
        String type = m.optString("type");
        if ("welcome".equals(type)) {
            long protocol = Messages.requireLong(m, "protocol");
            Messages.requireString(m, "host");
            if (protocol != Messages.PROTOCOL) throw new ProtocolException("welcome chose protocol " + protocol + ", not one of [1]");
            welcomed = true;
            return true;
        }
        if ("refuse".equals(type)) {
            Server.LOG.info("the host refused: " + m.optString("code") + " " + m.optString("message"));
            close();
            server.exit(0, null);
            return false;
        }
        throw new ProtocolException("expected welcome or refuse, not " + type);
    }

    private void serve(InputStream in) throws IOException, ProtocolException {
        while (!closed) {
            JSONObject m = Frames.read(in);
            if (m == null) return;
            String type = m.optString("type");
            if ("request".equals(type)) {
                request(m);
            } else if ("ping".equals(type)) {
                send(Messages.pong(Messages.requireLong(m, "nonce")));
            }
            // pong and frames of types this protocol does not know are ignored (forward compatibility)
        }
    }

    private void request(JSONObject m) throws ProtocolException {
        final long id = Messages.requireLong(m, "id");
        if (id <= 0) throw new ProtocolException("a request id must be positive, not " + id);
        final String method = Messages.requireString(m, "method");
        Object rawBudget = Messages.requireNumber(m, "deadline_ms");
        final JSONObject params = Messages.requireObject(m, "params");
        if (!Messages.isLong(rawBudget) || ((Number) rawBudget).longValue() < 0) {
            // a number, but no integer of milliseconds in 0..2^63-1 (an integer literal past a long
            // is a Double to org.json): invalid_params, answered, as docs/protocol.md §4 says
            sendQuietly(Messages.error(id, "invalid_params",
                "deadline_ms must be an integer of milliseconds in 0.." + Long.MAX_VALUE + ", not " + rawBudget, false));
            return;
        }
        final long budget = ((Number) rawBudget).longValue();
        final Deadline deadline = new Deadline(server.clock, budget);
        if ("shutdown".equals(method)) {
            sendQuietly(Messages.result(id, new JSONObject()));
            closeWith("shutdown");
            server.exit(0, null);
            return;
        }
        final AtomicBoolean answered = new AtomicBoolean();
        final ScheduledFuture<?> timer = server.timers.schedule(new Runnable() {
            @Override
            public void run() {
                if (answered.compareAndSet(false, true)) {
                    sendQuietly(Messages.error(id, "deadline_exceeded", method + " did not finish within its deadline of " + budget + " ms", true));
                }
            }
        }, Math.max(0, deadline.remainingMs()), TimeUnit.MILLISECONDS);
        try {
            server.workers.execute(new Runnable() {
                @Override
                public void run() {
                    JSONObject response = perform(id, method, params, deadline);
                    if (answered.compareAndSet(false, true)) {
                        timer.cancel(false);
                        try {
                            sendQuietly(response);
                        } catch (RuntimeException | Error e) {
                            // a response that cannot even be encoded (OutOfMemoryError): say so in a small one
                            sendQuietly(Messages.error(id, "internal", method + " could not be answered: " + e, false));
                        }
                    }
                }
            });
        } catch (RejectedExecutionException e) {
            timer.cancel(false);
            if (answered.compareAndSet(false, true)) sendQuietly(Messages.error(id, "busy", "every worker is busy", true));
        }
    }

    private JSONObject perform(long id, String method, JSONObject params, Deadline deadline) {
        try {
            return Messages.result(id, server.agent.handle(method, params, deadline));
        } catch (AgentError e) {
            return Messages.error(id, e.code, e.getMessage(), e.retryable);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Messages.error(id, "shutting_down", "the agent is shutting down", false);
        } catch (RuntimeException | Error e) {
            return Messages.error(id, "internal", method + " failed: " + e, false);
        }
    }

    // --- sending --------------------------------------------------------------------------------

    void send(JSONObject m) throws IOException, ProtocolException {
        synchronized (writeLock) {
            if (closed) throw new IOException("connection closed");
            Frames.write(out, m);
            lastSentMs = server.clock.nowMs();
        }
    }

    void sendQuietly(JSONObject m) {
        try {
            send(m);
        } catch (IOException | ProtocolException e) {
            close();
        }
    }

    void sendEvent(String name, JSONObject data) {
        if (!welcomed || closed) return;
        synchronized (writeLock) {
            seq++;
            sendQuietly(Messages.event(seq, name, data));
        }
    }

    long lastSeq() {
        synchronized (writeLock) {
            return seq;
        }
    }

    void skipSeq() {
        synchronized (writeLock) {
            seq++;
        }
    }

    void pingIfQuiet() {
        if (!welcomed || closed) return;
        synchronized (writeLock) {
            if (server.clock.nowMs() - lastSentMs < server.config.pingIntervalMs) return;
            sendQuietly(Messages.ping(++pingNonce));
        }
    }

    /** Sends closing with the reason (the last frame) and closes. */
    void closeWith(String reason) {
        sendQuietly(Messages.closing(reason));
        close();
    }

    void close() {
        synchronized (writeLock) {
            if (closed) return;
            closed = true;
        }
        peer.close();
    }
}
