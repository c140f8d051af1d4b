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
        LaunchOutput out = LaunchOutput.stdout();
        AndroidAgent.Options options = AndroidAgent.Options.parse(args, out);
        if (options == null) {
            System.exit(1);
            return;
        }
        // A bare app_process has no main looper; framework code expects one before UI automation connects.
        Looper.prepareMainLooper();
        System.exit(AndroidAgent.run(options, out));
    }
}
