package dev.mobileagent.agent.wrappers;

/**
 * Process.setArgV0 (hidden, every API level; no fallback: a device without it only shows
 * app_process's name in {@code ps}): the name {@code ps -A -o PID,ARGS} shows.
 */
public final class ArgV0 {
    private ArgV0() {}

    public static void set(String name) throws MissingApi {
        Reflect.invoke(Reflect.method(android.os.Process.class, "setArgV0", String.class), null, name);
    }
}
