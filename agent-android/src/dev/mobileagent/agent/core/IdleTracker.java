package dev.mobileagent.agent.core;

import dev.mobileagent.agent.platform.Clock;

/**
 * The bounded idle wait: a snapshot waits until {@code quietMs} have passed since the last
 * accessibility event or agent action, or until its bound, whichever comes first.
 */
public final class IdleTracker {
    private final Clock clock;
    private long lastActivityMs;

    public IdleTracker(Clock clock) {
        this.clock = clock;
        this.lastActivityMs = clock.nowMs() - 3_600_000L;
    }

    /** An event arrived or the agent acted. */
    public synchronized void noteActivity() {
        lastActivityMs = clock.nowMs();
        notifyAll();
    }

    public synchronized long lastActivityMs() {
        return lastActivityMs;
    }

    /** The outcome of one wait. */
    public static final class Result {
        public final long waitedMs;
        public final boolean idle;

        Result(long waitedMs, boolean idle) {
            this.waitedMs = waitedMs;
            this.idle = idle;
        }
    }

    /** Waits at most min(timeoutMs, the deadline); 0 does not wait and reports whether it is quiet now. */
    public synchronized Result await(long timeoutMs, long quietMs, Deadline deadline) throws InterruptedException {
        long start = clock.nowMs();
        long end = start + Math.max(0, timeoutMs);
        if (deadline != null) end = Math.min(end, deadline.atMs());
        while (true) {
            long now = clock.nowMs();
            long quietAt = lastActivityMs + quietMs;
            if (now >= quietAt) return new Result(now - start, true);
            if (now >= end) return new Result(now - start, false);
            clock.waitOn(this, Math.min(quietAt, end) - now);
        }
    }
}
