package dev.mobileagent.agent.platform;

/** Monotonic time in milliseconds, injectable so the idle wait and gestures are tested with a fake clock. */
public interface Clock {
    long nowMs();

    void sleepMs(long ms) throws InterruptedException;

    /** Waits on {@code monitor} (held by the caller) for at most {@code ms}; a fake clock advances instead. */
    void waitOn(Object monitor, long ms) throws InterruptedException;

    Clock SYSTEM = new Clock() {
        @Override
        public long nowMs() {
            return System.nanoTime() / 1_000_000L;
        }

        @Override
        public void sleepMs(long ms) throws InterruptedException {
            if (ms > 0) Thread.sleep(ms);
        }

        @Override
        public void waitOn(Object monitor, long ms) throws InterruptedException {
            if (ms > 0) monitor.wait(ms);
        }
    };
}
