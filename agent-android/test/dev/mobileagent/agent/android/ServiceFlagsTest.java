package dev.mobileagent.agent.android;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import dev.mobileagent.agent.platform.PlatformException;
import org.junit.Test;

/** A null UiAutomation.getServiceInfo() fails the start loudly (it left every window list empty). */
public class ServiceFlagsTest {
    @Test
    public void aNullServiceInfoIsAutomationUnavailableWithTheReason() {
        try {
            ServiceFlags.withAgentFlags(null);
            fail("a null service info was accepted");
        } catch (PlatformException e) {
            assertEquals("automation_unavailable", e.code);
            assertTrue(e.getMessage(), e.getMessage().contains("getServiceInfo() returned null"));
        }
    }
}
