package dev.mobileagent.agent;

import android.os.Looper;
import dev.mobileagent.agent.android.AndroidAgent;
import dev.mobileagent.agent.server.LaunchOutput;

/**
 * The agent on the device, started as the shell user:
 * {@code MOBILE_AGENT_TOKEN=... CLASSPATH=JAR app_process / dev.mobileagent.agent.Main serve
 * --socket NAME --idle-exit-ms MS [--force]}. Prints one of the launch lines of
 * docs/protocol.md §2, then serves until the idle bound, a shutdown or a version mismatch.
 */
public final class Main {
    private Main() {}

    public static void main(String[] args) {
        // A bare app_process has no main looper; framework code posts to one (MainThread).
        Looper.prepareMainLooper();
        final LaunchOutput out = LaunchOutput.stdout();
        final AndroidAgent.Options options = AndroidAgent.Options.parse(args, out);
        if (options == null) {
            System.exit(1);
            return;
        }
        MainThread.run(Looper::loop, () -> AndroidAgent.run(options, out), System::exit);
    }
}
