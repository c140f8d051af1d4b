package dev.mobileagent.agent.server;

import dev.mobileagent.agent.core.Agent;
import dev.mobileagent.agent.core.EventOut;
import dev.mobileagent.agent.platform.Clock;
import dev.mobileagent.agent.platform.Transport;
import java.io.IOException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Logger;
import org.json.JSONObject;

/**
 * The protocol server: accepts peers, runs each connection's handshake, serves one host at a time
 * (a newer authenticated connection replaces the older), sends events to the welcomed host, and
 * ends the process on the idle bound, a shutdown or a version mismatch, releasing UI automation.
 */
public final class Server implements EventOut {
    static final Logger LOG = Logger.getLogger("dev.mobileagent.agent.server");

    final Agent agent;
    final ServerConfig config;
    final LaunchOutput output;
    final Clock clock;
    private final Transport transport;
    private final Exiter exiter;
    final ThreadPoolExecutor workers;
    final ScheduledExecutorService timers;
    private final CountDownLatch exited = new CountDownLatch(1);
    private volatile int exitStatus = -1;

    private Connection current;
    private long idleSinceMs;
    private boolean exiting;
    /** Events go out on a thread of their own: emit() is called on UiAutomation's callback thread. */
    private final java.util.concurrent.ExecutorService eventWriter;

    public Server(Agent agent, Transport transport, ServerConfig config, LaunchOutput output, Exiter exiter, Clock clock) {
        this.agent = agent;
        this.transport = transport;
        this.config = config;
        this.output = output;
        this.exiter = exiter;
        this.clock = clock;
        this.workers = new ThreadPoolExecutor(1, config.workers, 30, TimeUnit.SECONDS, new SynchronousQueue<Runnable>(), daemons("mobile-agent-worker"));
        this.timers = Executors.newScheduledThreadPool(1, daemons("mobile-agent-timer"));
        this.eventWriter = Executors.newSingleThreadExecutor(daemons("mobile-agent-events"));
        agent.setEvents(this);
    }

    static ThreadFactory daemons(final String name) {
        final AtomicInteger n = new AtomicInteger();
        return new ThreadFactory() {
            @Override
            public Thread newThread(Runnable r) {
                Thread t = new Thread(r, name + "-" + n.incrementAndGet());
                t.setDaemon(true);
                return t;
            }
        };
    }

    /** Starts accepting; the idle bound counts from now (the ready line). */
    public void start() {
        synchronized (this) {
            idleSinceMs = clock.nowMs();
        }
        Thread accept = new Thread(new Runnable() {
            @Override
            public void run() {
                acceptLoop();
            }
        }, "mobile-agent-accept");
        accept.setDaemon(true);
        accept.start();
        long tick = Math.max(10, Math.min(250, config.idleExitMs / 4));
        timers.scheduleWithFixedDelay(new Runnable() {
            @Override
            public void run() {
                tick();
            }
        }, tick, tick, TimeUnit.MILLISECONDS);
    }

    private void acceptLoop() {
        while (!isExiting()) {
            Transport.Peer peer;
            try {
                peer = transport.accept();
            } catch (IOException e) {
                if (!isExiting()) LOG.warning("accept failed: " + e);
                return;
            } catch (RuntimeException | Error e) {
                LOG.warning("accept failed, accepting on: " + e);
                continue;
            }
            final Connection c = new Connection(this, peer);
            Thread t = new Thread(new Runnable() {
                @Override
                public void run() {
                    c.run();
                }
            }, "mobile-agent-connection");
            t.setDaemon(true);
            t.start();
        }
    }

    /** The idle bound and the pings; a throwable must not end the fixed-delay schedule. */
    private void tick() {
        try {
            tickOnce();
        } catch (RuntimeException | Error e) {
            LOG.warning("tick failed: " + e);
        }
    }

    private void tickOnce() {
        Connection c;
        boolean idleOut;
        synchronized (this) {
            c = current;
            idleOut = c == null && !exiting && clock.nowMs() - idleSinceMs >= config.idleExitMs;
        }
        if (idleOut) {
            exit(0, "idle");
        } else if (c != null) {
            c.pingIfQuiet();
        }
    }

    /** A connection completed auth: it becomes the host, the older one is told it was replaced. */
    void promote(Connection c) {
        Connection older;
        synchronized (this) {
            older = current;
            current = c;
        }
        if (older != null && older != c) older.closeWith("replaced");
    }

    /** A connection ended; when it was the host, the idle bound counts from now. */
    void ended(Connection c) {
        synchronized (this) {
            if (current != c) return;
            current = null;
            idleSinceMs = clock.nowMs();
        }
    }

    synchronized Connection current() {
        return current;
    }

    synchronized boolean isExiting() {
        return exiting;
    }

    /** Ends the agent: closes the host's connection with {@code reason}, releases automation, exits. */
    public void exit(int status, String reason) {
        Connection c;
        synchronized (this) {
            if (exiting) return;
            exiting = true;
            c = current;
            current = null;
        }
        if (c != null && reason != null) c.closeWith(reason);
        transport.close();
        try {
            agent.platform().release();
        } finally {
            exitStatus = status;
            workers.shutdownNow();
            timers.shutdownNow();
            eventWriter.shutdownNow();
            exited.countDown();
            exiter.exit(status);
        }
    }

    /** Waits until the server exited; returns its status, or -1 at the timeout. */
    public int awaitExit(long timeoutMs) throws InterruptedException {
        if (timeoutMs <= 0) exited.await();
        else exited.await(timeoutMs, TimeUnit.MILLISECONDS);
        return exitStatus;
    }

    // --- EventOut -------------------------------------------------------------------------------

    /**
     * Queues the event for the current host and returns at once: a host slow to read (its socket
     * full) must never stall UiAutomation's callback thread, which would hold up the platform's
     * event dispatch to the agent. The writer thread sends events in the order they were emitted.
     */
    @Override
    public void emit(final String name, final JSONObject data) {
        final Connection c = current();
        if (c == null) return;
        try {
            eventWriter.execute(new Runnable() {
                @Override
                public void run() {
                    try {
                        c.sendEvent(name, data);
                    } catch (RuntimeException | Error e) {
                        LOG.warning("sending an event failed: " + e);
                    }
                }
            });
        } catch (java.util.concurrent.RejectedExecutionException e) {
            // the agent is exiting: no host is left to tell
        }
    }

    @Override
    public long lastSeq() {
        Connection c = current();
        return c == null ? 0 : c.lastSeq();
    }

    /** Test support (HostMain's `gap`): the next event skips one seq, as if an event was lost. */
    public void loseNextEvent() {
        Connection c = current();
        if (c != null) c.skipSeq();
    }
}
