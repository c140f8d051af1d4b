package dev.mobileagent.agent.android;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;

import org.junit.Test;

/** Naming the likely holder of UI automation from a process's command line. */
public class HoldersTest {
    @Test
    public void uiautomatorIsNamedWithItsArguments() {
        Holders.Holder h = Holders.classify(345, "app_process /system/bin com.android.commands.uiautomator.Launcher events");
        assertEquals("uiautomator events", h.name);
        assertEquals(345, h.pid);
        assertNull("killed by pid", h.pkg);
        assertEquals("uiautomator events", Holders.classify(346, "uiautomator events").name);
    }

    @Test
    public void anotherAgentIsNamedByItsSocket() {
        String name = "mobile-agent mobile-agent-0.1.0-p1-7fec0cb05341-9f3cf6e22dae";
        assertEquals(name, Holders.classify(2973, name).name);
    }

    @Test
    public void instrumentationServersAreForceStoppedByPackage() {
        assertEquals("io.appium.uiautomator2.server", Holders.classify(9, "io.appium.uiautomator2.server").pkg);
        assertEquals("com.github.uiautomator", Holders.classify(10, "com.github.uiautomator").pkg);
    }

    @Test
    public void anotherAgentIsFoundInTheProcessList() throws Exception {
        // a process whose argv0 is "mobile-agent <socket>", as setArgV0 makes the agent's
        Process p = new ProcessBuilder("bash", "-c", "exec -a 'mobile-agent mobile-agent-junit-holder' sleep 30").start();
        try {
            Holders.Holder found = null;
            long end = System.currentTimeMillis() + 3000;
            while (found == null && System.currentTimeMillis() < end) {
                for (Holders.Holder h : Holders.scan(ProcessHandle.current().pid())) {
                    if (h.pid == p.pid()) found = h;
                }
                if (found == null) Thread.sleep(20);
            }
            assertEquals("mobile-agent mobile-agent-junit-holder 30", found.name);
            assertNull(found.pkg);
        } finally {
            p.destroyForcibly().waitFor();
        }
    }

    @Test
    public void otherProcessesAreNoHolders() {
        assertNull(Holders.classify(1, "/system/bin/init second_stage"));
        assertNull(Holders.classify(2, "com.android.systemui"));
        assertNull(Holders.classify(3, "sh -c ps"));
    }
}
