package dev.mobileagent.agent.server;

import static dev.mobileagent.agent.protocol.Messages.put;

import dev.mobileagent.agent.core.Agent;
import dev.mobileagent.agent.platform.Clock;
import dev.mobileagent.agent.platform.Platform;
import dev.mobileagent.agent.platform.Transport;
import org.json.JSONArray;
import org.json.JSONObject;

/** Starts the server over a connected platform and a listening transport, and prints the ready line. */
public final class AgentRuntime {
    private AgentRuntime() {}

    public static Server serve(Platform platform, Transport transport, ServerConfig config, LaunchOutput out,
                               Exiter exiter, JSONArray stopped) {
        Agent agent = new Agent(platform, Clock.SYSTEM);
        Server server = new Server(agent, transport, config, out, exiter, Clock.SYSTEM);
        server.start();
        out.ready(config.readyLine(stopped));
        return server;
    }

    public static JSONObject error(String code, String message) {
        return put(put(new JSONObject(), "code", code), "message", message);
    }

    public static JSONObject holder(Long pid, String name) {
        return put(put(new JSONObject(), "pid", pid), "name", name);
    }
}
