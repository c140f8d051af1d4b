package dev.mobileagent.agent.fake;

import java.util.ArrayDeque;

/**
 * The app's UI thread as the input dispatcher feeds it. A key injected asynchronously
 * (INJECT_INPUT_EVENT_MODE_ASYNC) is queued and returns at once; the app handles queued keys one at
 * a time, in order, after the injecting call returned, as InputDispatcher delivers to the focused
 * window's input channel and the app's Looper dispatches from it. In the host tests every look at
 * the screen through the platform (the window list, a node's live text or bounds, the focused
 * node) first lets the app handle what is queued, unless a test holds the app busy; HostMain runs
 * it as a thread of its own.
 */
final class AppThread {
    private final FakePlatform platform;
    private final ArrayDeque<int[]> queued = new ArrayDeque<>();
    /** Held while a key is handled: one at a time, as on a UI thread. */
    private final Object handling = new Object();
    private boolean busy;

    AppThread(FakePlatform platform) {
        this.platform = platform;
    }

    void queue(int[] key) {
        synchronized (queued) {
            queued.add(key);
            queued.notifyAll();
        }
    }

    void setBusy(boolean busy) {
        synchronized (queued) {
            this.busy = busy;
            queued.notifyAll();
        }
    }

    /** Handles every queued key unless the app is busy; true when nothing is left queued. */
    boolean handleQueued() {
        if (Thread.holdsLock(handling)) return false; // a key being handled looks at the screen
        synchronized (handling) {
            while (true) {
                int[] key;
                synchronized (queued) {
                    if (busy) return queued.isEmpty();
                    key = queued.poll();
                }
                if (key == null) return true;
                platform.handleKey(key[0], key[1], key[2]);
            }
        }
    }

    /** Runs the UI thread by itself (HostMain): it handles keys as they are queued. */
    void start() {
        Thread t = new Thread(this::loop, "fake-app-ui-thread");
        t.setDaemon(true);
        t.start();
    }

    private void loop() {
        while (true) {
            synchronized (queued) {
                while (busy || queued.isEmpty()) {
                    try {
                        queued.wait();
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }
            handleQueued();
        }
    }
}
