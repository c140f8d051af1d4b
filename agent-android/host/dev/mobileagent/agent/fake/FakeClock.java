package dev.mobileagent.agent.fake;

import dev.mobileagent.agent.platform.Clock;
import java.util.ArrayList;
import java.util.List;

/**
 * A clock that only moves when the code under test sleeps or waits: time jumps to the end of the
 * sleep, running the periodic tasks (an endless animation's events) that fall due on the way.
 */
public final class FakeClock implements Clock {
    private long now = 1_000_000L;
    private final List<long[]> periods = new ArrayList<>();
    private final List<Runnable> tasks = new ArrayList<>();

    @Override
    public synchronized long nowMs() {
        return now;
    }

    /** Runs {@code task} every {@code periodMs} of fake time, starting one period from now. */
    public synchronized void every(long periodMs, Runnable task) {
        periods.add(new long[] {now + periodMs, periodMs});
        tasks.add(task);
    }

    public synchronized void stopTasks() {
        periods.clear();
        tasks.clear();
    }

    @Override
    public void sleepMs(long ms) {
        advance(ms);
    }

    @Override
    public void waitOn(Object monitor, long ms) {
        advance(ms);
    }

    /** Moves time forward by {@code ms}, running due tasks in time order. */
    public void advance(long ms) {
        long end;
        synchronized (this) {
            end = now + Math.max(0, ms);
        }
        while (true) {
            Runnable due = null;
            synchronized (this) {
                int next = -1;
                for (int i = 0; i < periods.size(); i++) {
                    if (periods.get(i)[0] <= end && (next < 0 || periods.get(i)[0] < periods.get(next)[0])) next = i;
                }
                if (next < 0) {
                    now = end;
                    return;
                }
                long[] p = periods.get(next);
                now = Math.max(now, p[0]);
                p[0] += p[1];
                due = tasks.get(next);
            }
            due.run();
        }
    }
}
