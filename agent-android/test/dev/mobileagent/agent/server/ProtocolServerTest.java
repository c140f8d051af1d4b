package dev.mobileagent.agent.server;

import static dev.mobileagent.agent.Support.TOKEN;
import static dev.mobileagent.agent.Support.o;
import static dev.mobileagent.agent.Support.obj;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import dev.mobileagent.agent.Support.Client;
import dev.mobileagent.agent.Support.Harness;
import dev.mobileagent.agent.Version;
import dev.mobileagent.agent.fake.FakeWindow;
import dev.mobileagent.agent.fake.Fixtures;
import dev.mobileagent.agent.protocol.FramesTest;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.json.JSONObject;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;

/** The protocol server over loopback: auth, handshake, replacement, pings, deadlines, bad frames, exits. */
public class ProtocolServerTest {
    private Harness h;

    @Before
    public void start() throws Exception {
        h = new Harness(Fixtures.fixedUi());
    }

    @After
    public void stop() {
        h.close();
    }

    @Test
    public void aRightTokenGetsHelloWithTheAgentsIdentityAndTheWelcomeStartsTheSession() throws Exception {
        Client c = h.connect();
        c.send(o("type", "auth", "token", TOKEN));
        JSONObject hello = c.read(3000);
        assertEquals("hello", hello.getString("type"));
        assertEquals("mobile-agent-android", hello.getString("agent"));
        assertEquals(Version.version(), hello.getString("version"));
        assertEquals("7fec0cb05341", hello.getString("build"));
        assertEquals(1, hello.getJSONArray("protocols").getInt(0));
        assertEquals(4242, hello.getLong("pid"));
        assertEquals(h.config.socket, hello.getString("socket"));
        String caps = hello.getJSONArray("capabilities").toString();
        for (String cap : new String[] {"events", "bounds", "window_metadata", "text_clipboard", "a11y_fields"}) assertTrue(caps, caps.contains(cap));
        c.send(obj("{\"type\":\"welcome\",\"protocol\":1,\"host\":\"junit\"}"));
        assertTrue(c.request("snapshot", "{}").has("result"));
    }

    @Test
    public void theVersionStringIsTheOnlyPlaceOfTheVersion() {
        assertTrue(Version.AGENT.startsWith("mobile-agent-android "));
        assertEquals(Version.AGENT, "mobile-agent-android " + Version.version());
    }

    @Test
    public void aWrongTokenIsRefusedUnauthorizedRevealingNothing() throws Exception {
        Client c = h.connect();
        c.send(o("type", "auth", "token", "ffffffffffffffffffffffffffffffff"));
        JSONObject r = c.read(3000);
        assertEquals("{\"type\":\"refused\",\"code\":\"unauthorized\",\"message\":\"unauthorized\"}", r.toString());
        assertTrue(c.closedWithin(2000));
    }

    @Test
    public void aMissingTokenIsRefusedUnauthorized() throws Exception {
        Client c = h.connect();
        c.send(obj("{\"type\":\"auth\"}"));
        assertEquals("unauthorized", c.read(3000).getString("code"));
        assertTrue(c.closedWithin(2000));
    }

    @Test
    public void aRootPeerReachesTheTokenCheckWhileTheAgentRunsAsTheShell() throws Exception {
        // `adb root` with the agent launched as the shell (su 2000): adbd's connection is root's
        h.transport.setPeerUid(0);
        Client wrong = h.connect();
        wrong.send(obj("{\"type\":\"auth\",\"token\":\"" + "0".repeat(32) + "\"}"));
        assertEquals("the token is still the check", "unauthorized", wrong.read(3000).getString("code"));
        Client root = h.host();
        assertTrue("root with the token is served", root.request("snapshot", "{}").has("result"));
        h.transport.setPeerUid(2000);
    }

    @Test
    public void aPeerOfAnotherAppIsRefusedAndLogged() throws Exception {
        Client host = h.host();
        h.transport.setPeerUid(10_123);
        Client app = h.connect();
        JSONObject r = app.read(3000);
        assertEquals("peer_not_allowed", r.getString("code"));
        assertTrue(app.closedWithin(2000));
        assertTrue(h.stdout(), h.stdout().contains("MOBILE_AGENT_LOG refused peer uid 10123\n"));
        assertTrue("the host keeps being served", host.request("snapshot", "{}").has("result"));
        h.transport.setPeerUid(2000);
    }

    @Test
    public void underAdbRootTheAgentAcceptsItsOwnUidAndRefusesTheShell() throws Exception {
        // `adb root`: adbd and the shell that starts the agent run as uid 0 (packages/modules/adb,
        // daemon/main.cpp should_drop_privileges), so adbd's connection to the socket comes from root
        h.config.allowedUid = 0;
        h.transport.setPeerUid(0);
        Client root = h.host();
        assertTrue(root.request("snapshot", "{}").has("result"));
        h.transport.setPeerUid(2000);
        JSONObject r = h.connect().read(3000);
        assertEquals("peer_not_allowed", r.getString("code"));
        assertTrue(h.stdout().contains("MOBILE_AGENT_LOG refused peer uid 2000\n"));
    }

    @Test
    public void aFirstFrameOtherThanAuthIsAProtocolErrorClose() throws Exception {
        Client c = h.connect();
        c.send(obj("{\"type\":\"ping\",\"nonce\":1}"));
        JSONObject r = c.read(3000);
        assertEquals("closing", r.getString("type"));
        assertEquals("protocol_error", r.getString("reason"));
        assertTrue(c.closedWithin(2000));
    }

    @Test
    public void aRequestBeforeWelcomeIsAProtocolErrorClose() throws Exception {
        Client c = h.connect();
        c.send(o("type", "auth", "token", TOKEN));
        c.read(3000);
        c.send(obj("{\"type\":\"request\",\"id\":1,\"method\":\"snapshot\",\"deadline_ms\":1000,\"params\":{}}"));
        assertEquals("protocol_error", c.next("closing", 3000).getString("reason"));
    }

    @Test
    public void aRefuseWithVersionMismatchMakesTheAgentReleaseAutomationAndExit() throws Exception {
        Client c = h.connect();
        c.send(o("type", "auth", "token", TOKEN));
        c.read(3000);
        c.send(obj("{\"type\":\"refuse\",\"code\":\"version_mismatch\",\"message\":\"host speaks protocols [2]\"}"));
        assertTrue(c.closedWithin(2000));
        assertTrue("the agent exits", h.exiter.await(2000));
        assertEquals(0, h.exiter.status);
        assertTrue("UI automation is released", h.platform.released);
    }

    @Test
    public void aWelcomeChoosingAProtocolNotOfferedIsAProtocolError() throws Exception {
        Client c = h.connect();
        c.send(o("type", "auth", "token", TOKEN));
        c.read(3000);
        c.send(obj("{\"type\":\"welcome\",\"protocol\":2,\"host\":\"junit\"}"));
        assertEquals("protocol_error", c.next("closing", 3000).getString("reason"));
    }

    @Test
    public void aNewerConnectionReplacesTheOlderWhichIsToldSoAndClosed() throws Exception {
        Client older = h.host();
        assertTrue(older.request("snapshot", "{}").has("result"));
        Client newer = h.host();
        assertEquals("replaced", older.next("closing", 3000).getString("reason"));
        assertTrue(older.closedWithin(2000));
        assertTrue(newer.request("snapshot", "{}").has("result"));
    }

    @Test
    public void aPingIsAnsweredWithItsNonce() throws Exception {
        Client c = h.host();
        c.send(obj("{\"type\":\"ping\",\"nonce\":5}"));
        JSONObject pong = c.next("pong", 3000);
        assertEquals(5, pong.getLong("nonce"));
    }

    @Test
    public void theAgentPingsAHostAfterASecondWithoutFrames() throws Exception {
        Client c = h.host();
        long start = System.nanoTime();
        JSONObject ping = c.next("ping", 3000);
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(ping.has("nonce"));
        // the interval counts from the agent's last frame (the pong of host()), which this thread saw later
        assertTrue("no ping long before the second: " + ms, ms >= 500);
        c.send(o("type", "pong", "nonce", ping.getLong("nonce")));
    }

    @Test
    public void aRequestThatCannotFinishByItsDeadlineIsAnsweredDeadlineExceeded() throws Exception {
        Client c = h.host();
        final CountDownLatch release = new CountDownLatch(1);
        FakeWindow app = h.platform.window(Fixtures.COMPOSE);
        app.setHook((w, parent, index) -> {
            try {
                release.await(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        long start = System.nanoTime();
        JSONObject r = c.request("snapshot", "{}", 300);
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        release.countDown();
        app.setHook(null);
        JSONObject err = r.getJSONObject("error");
        assertEquals("deadline_exceeded", err.getString("code"));
        assertTrue(err.getBoolean("retryable"));
        assertTrue("answered at the deadline, not after the stuck read (5 s): " + ms, ms < 4000);
        assertTrue("the connection still serves", c.request("snapshot", "{}").has("result"));
    }

    @Test
    public void aRequestFindingEveryWorkerBusyIsAnsweredBusyAndRetryable() throws Exception {
        try (Harness one = new Harness(Fixtures.fixedUi(), 60_000, 1)) {
            final CountDownLatch release = new CountDownLatch(1);
            FakeWindow app = one.platform.window(Fixtures.COMPOSE);
            app.setHook((w, parent, index) -> {
                try {
                    release.await(5, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            Client c = one.host();
            c.send(o("type", "request", "id", 50, "method", "snapshot", "deadline_ms", 5000, "params", obj("{}")));
            Thread.sleep(200);
            JSONObject busy = c.request("bounds", "{\"ids\":[1]}");
            release.countDown();
            app.setHook(null);
            assertEquals("busy", busy.getJSONObject("error").getString("code"));
            assertTrue(busy.getJSONObject("error").getBoolean("retryable"));
            assertEquals(50, c.next("response", 5000).getLong("id"));
        }
    }

    @Test
    public void inputRunsOneActionAtATimeAndALateOneIsNotCarriedOut() throws Exception {
        Client c = h.host();
        c.send(o("type", "request", "id", 60, "method", "tap", "deadline_ms", 5000, "params", obj("{\"x\":5,\"y\":2300,\"hold_ms\":600}")));
        Thread.sleep(100);
        JSONObject late = c.request("tap", "{\"x\":5,\"y\":2300}", 200);
        assertEquals("deadline_exceeded", late.getJSONObject("error").getString("code"));
        JSONObject first = c.next("response", 3000);
        assertEquals(60, first.getLong("id"));
        Thread.sleep(100);
        assertEquals("only the first tap's down and up were injected", 2, h.platform.touches.size());
    }

    @Test
    public void aGestureLongerThanItsDeadlineIsRefusedUpFront() throws Exception {
        Client c = h.host();
        JSONObject r = c.request("tap", "{\"x\":10,\"y\":10,\"hold_ms\":2000}", 500);
        assertEquals("deadline_exceeded", r.getJSONObject("error").getString("code"));
        assertTrue("nothing was injected", h.platform.touches.isEmpty());
    }

    @Test
    public void anOversizedFrameIsAProtocolErrorAndTheAgentKeepsServingOthers() throws Exception {
        Client c = h.host();
        c.sendRaw(new byte[] {0x01, 0x00, 0x00, 0x01, '{'});
        assertEquals("protocol_error", c.next("closing", 3000).getString("reason"));
        assertTrue(c.closedWithin(2000));
        assertTrue(h.host().request("snapshot", "{}").has("result"));
    }

    @Test
    public void beforeAuthAFrameOver64KiBIsAProtocolError() throws Exception {
        Client c = h.connect();
        c.sendRaw(new byte[] {0x00, 0x01, 0x00, 0x01});
        assertEquals("protocol_error", c.next("closing", 3000).getString("reason"));
    }

    @Test
    public void aFrameThatIsNotJsonIsAProtocolError() throws Exception {
        Client c = h.host();
        c.sendRaw(FramesTest.frame("not json".getBytes(StandardCharsets.UTF_8)));
        assertEquals("protocol_error", c.next("closing", 3000).getString("reason"));
    }

    @Test
    public void aRequestWithoutARequiredKeyIsAProtocolError() throws Exception {
        Client c = h.host();
        c.send(obj("{\"type\":\"request\",\"id\":3,\"method\":\"snapshot\",\"params\":{}}"));
        assertEquals("protocol_error", c.next("closing", 3000).getString("reason"));
    }

    @Test
    public void aFrameOfAnUnknownTypeAfterWelcomeIsIgnored() throws Exception {
        Client c = h.host();
        c.send(obj("{\"type\":\"telemetry\",\"x\":1}"));
        assertTrue(c.request("snapshot", "{}").has("result"));
    }

    @Test
    public void anUnknownMethodIsAnsweredUnknownMethod() throws Exception {
        JSONObject r = h.host().request("teleport", "{}");
        assertEquals("unknown_method", r.getJSONObject("error").getString("code"));
        assertFalse(r.getJSONObject("error").getBoolean("retryable"));
    }

    @Test
    public void badParamsAreInvalidParams() throws Exception {
        Client c = h.host();
        assertEquals("invalid_params", c.request("tap", "{\"x\":\"ten\",\"y\":1}").getJSONObject("error").getString("code"));
        assertEquals("invalid_params", c.request("snapshot", "{\"max_nodes\":-1}").getJSONObject("error").getString("code"));
    }

    @Test
    public void shutdownIsAnsweredThenTheAgentClosesReleasesAndExits() throws Exception {
        Client c = h.host();
        JSONObject r = c.request("shutdown", "{}");
        assertEquals("{}", r.getJSONObject("result").toString());
        assertEquals("shutdown", c.next("closing", 3000).getString("reason"));
        assertTrue(h.exiter.await(2000));
        assertEquals(0, h.exiter.status);
        assertTrue(h.platform.released);
    }

    @Test
    public void aSilentWelcomedHostIsClosedAfterTheLivenessTimeout() throws Exception {
        h.config.livenessTimeoutMs = 300;
        h.config.pingIntervalMs = 60_000;
        Client c = h.host();
        assertTrue(c.closedWithin(2500));
    }

    @Test
    public void withoutAHostTheAgentExitsAfterTheIdleBound() throws Exception {
        try (Harness idle = new Harness(Fixtures.fixedUi(), 200)) {
            assertTrue(idle.exiter.await(3000));
            assertEquals(0, idle.exiter.status);
            assertTrue(idle.platform.released);
        }
    }

    @Test
    public void aConnectedHostKeepsTheAgentPastTheIdleBoundAndItsEndRestartsIt() throws Exception {
        try (Harness idle = new Harness(Fixtures.fixedUi(), 300)) {
            Client c = idle.host();
            Thread.sleep(600);
            assertFalse("no exit while a host is connected", idle.exiter.await(1));
            c.send(obj("{\"type\":\"ping\",\"nonce\":1}"));
            assertNotNull(c.next("pong", 2000));
            c.close();
            assertTrue(idle.exiter.await(3000));
        }
    }
}
