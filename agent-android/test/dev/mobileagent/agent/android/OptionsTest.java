package dev.mobileagent.agent.android;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import dev.mobileagent.agent.server.LaunchOutput;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import org.junit.Test;

/** The device entry point's command line: serve --socket NAME --idle-exit-ms MS [--force]. */
public class OptionsTest {
    @Test
    public void theLaunchCommandLineParses() {
        AndroidAgent.Options o = AndroidAgent.Options.parse(
            new String[] {"serve", "--socket", "mobile-agent-0.1.0-p1-7fec0cb05341-9f3cf6e22dae", "--idle-exit-ms", "10000", "--force"},
            new LaunchOutput(new ByteArrayOutputStream()));
        assertEquals("mobile-agent-0.1.0-p1-7fec0cb05341-9f3cf6e22dae", o.socket);
        assertEquals(10000, o.idleExitMs);
        assertTrue(o.force);
    }

    @Test
    public void aBadCommandLineIsTheErrorLineWithTheUsage() {
        String[][] bad = {{}, {"run"}, {"serve", "--idle-exit-ms", "5"}, {"serve", "--socket", "x"}, {"serve", "--socket", "x", "--idle-exit-ms", "soon"},
            {"serve", "--socket", "x", "--idle-exit-ms", "5", "--verbose"}};
        for (String[] args : bad) {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            assertNull(AndroidAgent.Options.parse(args, new LaunchOutput(bytes)));
            String line = new String(bytes.toByteArray(), StandardCharsets.UTF_8);
            assertTrue(line, line.startsWith("MOBILE_AGENT_ERROR {\"code\":\"usage\""));
            assertTrue(line, line.contains("serve --socket NAME --idle-exit-ms MS [--force]"));
        }
    }
}
