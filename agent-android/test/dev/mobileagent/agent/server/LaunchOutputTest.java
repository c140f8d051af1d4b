package dev.mobileagent.agent.server;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import org.json.JSONArray;
import org.json.JSONObject;
import org.junit.Test;

/** The launch lines, and writes to a closed standard output ignored. */
public class LaunchOutputTest {
    @Test
    public void theReadyLineIsOneLineOfJsonAfterItsPrefix() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        ServerConfig c = new ServerConfig();
        c.pid = 2973;
        c.socket = "mobile-agent-0.1.0-p1-7fec0cb05341-9f3cf6e22dae";
        c.version = "0.1.0";
        c.build = "7fec0cb05341";
        new LaunchOutput(bytes).ready(c.readyLine(new JSONArray().put(AgentRuntime.holder(345L, "uiautomator events"))));
        String line = new String(bytes.toByteArray(), StandardCharsets.UTF_8);
        assertTrue(line.startsWith("MOBILE_AGENT_READY {"));
        assertTrue(line.endsWith("}\n"));
        JSONObject o = new JSONObject(line.substring("MOBILE_AGENT_READY ".length()));
        assertEquals(2973, o.getLong("pid"));
        assertEquals("[1]", o.getJSONArray("protocols").toString());
        assertEquals("uiautomator events", o.getJSONArray("stopped").getJSONObject(0).getString("name"));
    }

    @Test
    public void writesToAClosedStdoutAreIgnored() {
        OutputStream closed = new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                throw new IOException("Broken pipe (EPIPE)");
            }
        };
        LaunchOutput out = new LaunchOutput(closed);
        out.log("refused peer uid 0");
        out.log("again");
        assertTrue(out.broken());
    }
}
