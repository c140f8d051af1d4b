package dev.mobileagent.agent.core;

import dev.mobileagent.agent.platform.Clock;

/** A request's budget, counted from the moment the agent read its frame. */
public final class Deadline {
    private final Clock clock;
    private final long atMs;

    public Deadline(Clock clock, long budgetMs) {
        this.clock = clock;
        long now = clock.nowMs();
        long budget = Math.max(0, budgetMs);
        // saturated: deadline_ms may be up to 2^63-1, and now + that would wrap to the past
        this.atMs = budget > Long.MAX_VALUE - now ? Long.MAX_VALUE : now + budget;
    }

    public long atMs() {
        return atMs;
    }

    public long remainingMs() {
        return atMs - clock.nowMs();
    }

    public boolean passed() {
        return remainingMs() <= 0;
    }

    public void check(String what) throws AgentError {
        if (passed()) throw new AgentError("deadline_exceeded", what + " did not finish within the request's deadline");
    }
}
