package dev.mobileagent.agent.server;

import static dev.mobileagent.agent.protocol.Messages.put;

import java.util.Arrays;
import java.util.List;
import org.json.JSONArray;
import org.json.JSONObject;

/** What the server says about itself, and its limits. */
public final class ServerConfig {
    public static final List<String> CAPABILITIES = Arrays.asList("events", "bounds", "window_metadata", "text_clipboard",
        "multi_touch", "a11y_fields");

    public String agent = "mobile-agent-android";
    public String version;
    public String build;
    public long pid;
    public String socket;
    public String token;
    /**
     * The uid a peer must have besides root: the agent's own (2000 when the shell started it). Root
     * (uid 0) is always let through to the token check: under `adb root` adbd runs as root, and the
     * host launches the agent as the shell (`su 2000`), since a root agent's clipboard reads clear
     * the clipboard (Platform.clipboardReadRefusal). Anyone with root could read the token anyway.
     */
    public int allowedUid = 2000;

    /** The uid of root, whose peers reach the token check too. */
    public static final int ROOT_UID = 0;
    public long idleExitMs = 60_000;
    /**
     * A connection has this long to send auth, and then welcome; during the handshake a send to it
     * may block as long (the socket's timeouts are one: Transport.Peer.setTimeoutsMs).
     */
    public int handshakeTimeoutMs = 5_000;
    /**
     * A welcomed host silent this long is gone (it pings every second); so is one that reads
     * nothing for as long, a send to it making no progress (a full socket) failing at this bound.
     * A slow host that keeps reading never meets it: the bound counts from the send's last progress.
     */
    public int livenessTimeoutMs = 3_000;
    public int pingIntervalMs = 1_000;
    public int workers = 8;

    public JSONObject hello() {
        JSONObject o = new JSONObject();
        put(o, "type", "hello");
        put(o, "agent", agent);
        put(o, "version", version);
        put(o, "build", build);
        put(o, "protocols", new JSONArray().put(1));
        JSONArray caps = new JSONArray();
        for (String c : CAPABILITIES) caps.put(c);
        put(o, "capabilities", caps);
        put(o, "pid", pid);
        put(o, "socket", socket);
        return o;
    }

    public JSONObject readyLine(JSONArray stopped) {
        JSONObject o = new JSONObject();
        put(o, "pid", pid);
        put(o, "socket", socket);
        put(o, "version", version);
        put(o, "build", build);
        put(o, "protocols", new JSONArray().put(1));
        put(o, "stopped", stopped == null ? new JSONArray() : stopped);
        return o;
    }
}
