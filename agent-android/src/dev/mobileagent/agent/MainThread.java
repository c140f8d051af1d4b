package dev.mobileagent.agent;

import java.util.concurrent.Callable;
import java.util.logging.Logger;

/**
 * The main thread of a bare app_process: it loops the main Looper, and the agent runs on a thread
 * of its own, which ends the process with the agent's exit status. Framework code posts to the main
 * looper (a Handler on Looper.getMainLooper(): the accessibility framework's, ClipboardManager's
 * listener transport); prepared but never looped, those messages would silently never run. This is
 * devicekit-android's way (app/src/main/java/com/mobilenext/devicekit/UiDump.kt: prepareMainLooper,
 * the work on a thread, Looper.loop() on main) and scrcpy's (Server.java, "Run a main looper",
 * commit 283326b2: clipboard changes are processed only with a running main looper, 8a02e3c2).
 */
final class MainThread {
    private static final Logger LOG = Logger.getLogger("dev.mobileagent.agent");

    /** What the main thread does while the agent runs: Looper.loop() on a device. */
    interface Loop {
        void loop();
    }

    /** How the process ends: System.exit on a device. */
    interface Exit {
        void exit(int status);
    }

    private MainThread() {}

    /** Starts the agent on its own thread, then loops on the calling (main) thread. */
    static void run(Loop mainLoop, final Callable<Integer> agent, final Exit exit) {
        Thread worker = new Thread(() -> exit.exit(statusOf(agent)), "mobile-agent-main");
        worker.start();
        mainLoop.loop();
    }

    private static int statusOf(Callable<Integer> agent) {
        try {
            return agent.call();
        } catch (Throwable e) {
            LOG.severe("the agent failed: " + e);
            return 1;
        }
    }
}
