package dev.mobileagent.agent.server;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import dev.mobileagent.agent.Support.Client;
import dev.mobileagent.agent.Support.Harness;
import dev.mobileagent.agent.Support;
import dev.mobileagent.agent.fake.FakeNode;
import dev.mobileagent.agent.fake.Fixtures;
import org.json.JSONObject;
import org.junit.Test;

/**
 * A host that stops reading. Events are written off UiAutomation's callback thread, so a full
 * socket never stalls the platform's event dispatch; and LocalSocket.setSoTimeout bounds sends as
 * well as reads (LocalSocketImpl.setOption sets SO_SNDTIMEO with SO_RCVTIMEO), so a send that makes
 * no progress for the liveness bound fails, the connection closes, and the agent serves the next host.
 */
public class SlowHostTest {
    @Test
    public void aHostThatReadsNothingNeverStallsTheEventCallback() throws Exception {
        try (Harness h = new Harness(Fixtures.fixedUi())) {
            Client c = h.host();
            FakeNode clock = Fixtures.clockOf(h.platform.window(Fixtures.STATUS_BAR));
            h.transport.stallWrites(true);
            // the fake platform calls the agent's event sink on the caller's thread, as
            // UiAutomation calls its listener on its looper thread
            Thread callback = new Thread(() -> {
                for (int i = 0; i < 5; i++) h.platform.changeText(clock, "12:0" + i);
            }, "automation-callback");
            callback.start();
            callback.join(2_000);
            assertFalse("the callback thread returned while the host read nothing", callback.isAlive());
            h.transport.stallWrites(false);
            JSONObject first = c.next("event", 3000);
            assertEquals(1, first.getLong("seq"));
        }
    }

    @Test
    public void aSendThatMakesNoProgressForTheLivenessBoundDropsTheHostAndTheNextIsServed() throws Exception {
        try (Harness h = new Harness(Fixtures.fixedUi())) {
            h.config.livenessTimeoutMs = 400;
            Client stuck = h.host();
            h.transport.stallWrites(true);
            // the host keeps sending (pings every 100 ms), so only the agent's send can time out
            Thread pinger = new Thread(() -> {
                try {
                    for (int n = 1; n < 40; n++) {
                        stuck.send(Support.o("type", "ping", "nonce", n));
                        Thread.sleep(100);
                    }
                } catch (Exception e) {
                    // closed by the agent: done
                }
            });
            pinger.setDaemon(true);
            stuck.send(Support.o("type", "request", "id", 1, "method", "screenshot", "deadline_ms", 5000,
                "params", new JSONObject()));
            pinger.start();
            assertTrue("the agent closed the host its send made no progress to", stuck.closedWithin(3000));
            h.transport.stallWrites(false);
            Client next = h.host();
            assertTrue(next.request("snapshot", "{}").has("result"));
        }
    }
}
