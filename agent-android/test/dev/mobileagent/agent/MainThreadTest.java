package dev.mobileagent.agent;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.Test;

/**
 * The main thread loops its Looper while the agent runs on a thread of its own, as
 * devicekit-android's UiDump.kt does (the old Main prepared the main looper, never looped it, and
 * ran the agent on the main thread, so nothing posted to the main looper ever ran).
 */
public class MainThreadTest {
    /** A main looper that runs what is posted to it until the process exits. */
    static final class FakeLooper implements MainThread.Loop {
        final CountDownLatch exited = new CountDownLatch(1);
        final AtomicReference<Thread> loopedOn = new AtomicReference<>();
        final AtomicInteger ranPosted = new AtomicInteger();
        volatile Runnable posted;

        @Override
        public void loop() {
            loopedOn.set(Thread.currentThread());
            try {
                while (!exited.await(5, TimeUnit.MILLISECONDS)) {
                    Runnable r = posted;
                    if (r != null) {
                        posted = null;
                        r.run();
                        ranPosted.incrementAndGet();
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Test
    public void theCallingThreadLoopsWhileTheAgentRunsElsewhereAndExitsWithItsStatus() throws Exception {
        FakeLooper looper = new FakeLooper();
        AtomicReference<Thread> agentOn = new AtomicReference<>();
        AtomicInteger status = new AtomicInteger(-1);
        CountDownLatch postedRan = new CountDownLatch(1);
        MainThread.run(looper, () -> {
            agentOn.set(Thread.currentThread());
            looper.posted = postedRan::countDown; // a framework callback posted to the main looper
            assertTrue("what was posted to the main looper ran while the agent served",
                postedRan.await(5, TimeUnit.SECONDS));
            return 3;
        }, s -> {
            status.set(s);
            looper.exited.countDown();
        });
        assertEquals(Thread.currentThread(), looper.loopedOn.get());
        assertNotEquals(Thread.currentThread(), agentOn.get());
        assertEquals(1, looper.ranPosted.get());
        assertEquals(3, status.get());
    }

    @Test
    public void anAgentThatThrowsStillEndsTheProcessWithStatusOne() {
        FakeLooper looper = new FakeLooper();
        AtomicInteger status = new AtomicInteger(-1);
        MainThread.run(looper, () -> {
            throw new IllegalStateException("boom");
        }, s -> {
            status.set(s);
            looper.exited.countDown();
        });
        assertEquals(1, status.get());
    }
}
