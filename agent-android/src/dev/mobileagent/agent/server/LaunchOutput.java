package dev.mobileagent.agent.server;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import org.json.JSONObject;

/**
 * The launch lines of docs/protocol.md §2 on standard output. The host drops the launch stream
 * after the ready line, so later writes fail with EPIPE: they are ignored and the agent keeps serving.
 */
public class LaunchOutput {
    private final OutputStream out;
    private volatile boolean broken;

    public LaunchOutput(OutputStream out) {
        this.out = out;
    }

    /** Standard output as a raw file descriptor (no PrintStream buffering or error swallowing of its own). */
    public static LaunchOutput stdout() {
        return new LaunchOutput(new FileOutputStream(FileDescriptor.out));
    }

    public void ready(JSONObject info) {
        line("MOBILE_AGENT_READY " + info);
    }

    public void conflict(JSONObject info) {
        line("MOBILE_AGENT_CONFLICT " + info);
    }

    public void error(JSONObject info) {
        line("MOBILE_AGENT_ERROR " + info);
    }

    public void log(String message) {
        line("MOBILE_AGENT_LOG " + message);
    }

    /** Writes one line; a closed stdout (EPIPE) is remembered and ignored. */
    public synchronized void line(String text) {
        if (broken) return;
        try {
            out.write((text + "\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
        } catch (IOException e) {
            broken = true;
        }
    }

    public boolean broken() {
        return broken;
    }
}
