package dev.mobileagent.agent;

import dev.mobileagent.agent.digest.BuildDigest;
import dev.mobileagent.agent.fake.FakePlatform;
import dev.mobileagent.agent.fake.FakeWindow;
import dev.mobileagent.agent.fake.Fixtures;
import dev.mobileagent.agent.fake.LoopbackTransport;
import dev.mobileagent.agent.server.AgentRuntime;
import dev.mobileagent.agent.server.Exiter;
import dev.mobileagent.agent.server.LaunchOutput;
import dev.mobileagent.agent.server.Server;
import dev.mobileagent.agent.server.ServerConfig;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import org.json.JSONArray;

/**
 * The agent on the host JVM, for tests: the same protocol server over loopback TCP, with the fake
 * platform and a fixed UI (the status bar over the Compose fixture's Login tab).
 *
 * <pre>
 * MOBILE_AGENT_TOKEN=... java -cp CLASSES:com.android.json.jar dev.mobileagent.agent.HostMain serve \
 *     --port 0 [--socket NAME] [--idle-exit-ms MS] [--peer-uid UID] [--agent-uid UID] [--build-file PATH]
 * </pre>
 * The ready line carries the bound port as "port"; --agent-uid is the uid the agent plays running as
 * (0 plays `adb root`). Standard input takes control lines for the
 * fake UI: {@code tick} (the status bar's clock changes: an event), {@code gap} (the next event
 * skips a seq, as if one was lost), {@code peer-uid UID}, {@code force-stop PACKAGE}, {@code launch},
 * {@code toast PACKAGE TEXT} (the app shows a toast: its accessibility event), {@code agent-uid UID}
 * (the uid the platform's clipboard sees the agent read as), {@code locked on|off} (the device's
 * keyguard), {@code clip TEXT} (an app's clip), {@code readback-black} (UiAutomation's read-back
 * comes back all zero), {@code focus-taken-by RES OTHER} (focus given to RES moves on to OTHER),
 * {@code app-busy on|off} (the app's UI thread holds its keys), {@code refuses-paste-action RES};
 * each is acknowledged with {@code MOBILE_AGENT_LOG control LINE} once applied.
 */
public final class HostMain {
    private HostMain() {}

    public static void main(String[] args) throws Exception {
        LaunchOutput out = LaunchOutput.stdout();
        int port = 0;
        int uid = 2000;
        int agentUid = 2000;
        String socket = null;
        long idleExit = 60_000;
        File buildFile = null;
        if (args.length == 0 || !"serve".equals(args[0])) {
            usage(out, "the first argument must be serve");
            return;
        }
        try {
            for (int i = 1; i < args.length; i++) {
                String a = args[i];
                if ("--port".equals(a)) port = Integer.parseInt(args[++i]);
                else if ("--socket".equals(a)) socket = args[++i];
                else if ("--idle-exit-ms".equals(a)) idleExit = Long.parseLong(args[++i]);
                else if ("--peer-uid".equals(a)) uid = Integer.parseInt(args[++i]);
                else if ("--agent-uid".equals(a)) agentUid = Integer.parseInt(args[++i]);
                else if ("--build-file".equals(a)) buildFile = new File(args[++i]);
                else throw new IllegalArgumentException("unknown option " + a);
            }
        } catch (RuntimeException e) {
            usage(out, e.getMessage() == null ? e.toString() : e.getMessage());
            return;
        }
        String token = System.getenv("MOBILE_AGENT_TOKEN");
        if (token == null || token.isEmpty()) {
            out.error(AgentRuntime.error("no_token", "MOBILE_AGENT_TOKEN is not set"));
            System.exit(1);
            return;
        }
        ServerConfig config = new ServerConfig();
        config.version = Version.version();
        config.build = buildFile == null ? BuildDigest.of(new byte[0]) : BuildDigest.ofFile(buildFile);
        config.pid = ProcessHandle.current().pid();
        config.socket = socket != null ? socket
            : "mobile-agent-" + config.version + "-p1-" + config.build + "-" + String.format("%012x", System.nanoTime() & 0xffffffffffffL);
        config.token = token;
        config.idleExitMs = idleExit;
        config.allowedUid = agentUid;
        LoopbackTransport transport;
        try {
            transport = new LoopbackTransport(port);
        } catch (IOException e) {
            out.error(AgentRuntime.error("socket_unavailable", "cannot listen on 127.0.0.1:" + port + ": " + e.getMessage()));
            System.exit(1);
            return;
        }
        transport.setPeerUid(uid);
        FakePlatform platform = Fixtures.fixedUi();
        platform.agentUid = agentUid;
        platform.runAppThread();
        LaunchOutput withPort = new PortOutput(out, transport.port());
        Server server = AgentRuntime.serve(platform, transport, config, withPort, Exiter.SYSTEM, new JSONArray());
        control(server, platform, transport, out);
        server.awaitExit(0);
    }

    private static void usage(LaunchOutput out, String why) {
        out.error(AgentRuntime.error("usage", why + "; usage: HostMain serve --port PORT [--socket NAME] "
            + "[--idle-exit-ms MS] [--peer-uid UID] [--agent-uid UID] [--build-file PATH]"));
        System.exit(1);
    }

    /** The control lines on standard input, read on a daemon thread; each is acknowledged on stdout once applied. */
    private static void control(final Server server, final FakePlatform platform, final LoopbackTransport transport,
                                final LaunchOutput out) {
        Thread t = new Thread(() -> {
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            int ticks = 0;
            try {
                String line;
                while ((line = in.readLine()) != null) {
                    String[] w = line.trim().split("\\s+");
                    if ("tick".equals(w[0])) {
                        ticks++;
                        FakeWindow bar = platform.window(Fixtures.STATUS_BAR);
                        if (bar != null) platform.changeText(Fixtures.clockOf(bar), String.format("12:%02d", ticks % 60));
                    } else if ("gap".equals(w[0])) {
                        server.loseNextEvent();
                    } else if ("peer-uid".equals(w[0]) && w.length > 1) {
                        transport.setPeerUid(Integer.parseInt(w[1]));
                    } else if ("force-stop".equals(w[0]) && w.length > 1) {
                        platform.forceStop(w[1]);
                    } else if ("launch".equals(w[0])) {
                        platform.addAndAnnounce(Fixtures.composeApp());
                    } else if ("toast".equals(w[0]) && w.length > 2) {
                        platform.showToast(w[1], line.trim().split("\\s+", 3)[2]);
                    } else if ("agent-uid".equals(w[0]) && w.length > 1) {
                        platform.agentUid = Integer.parseInt(w[1]);
                    } else if ("locked".equals(w[0]) && w.length > 1) {
                        platform.setDeviceLocked("on".equals(w[1]));
                    } else if ("clip".equals(w[0]) && w.length > 1) {
                        platform.setClipboardForTest(line.trim().split("\\s+", 2)[1]);
                    } else if ("readback-black".equals(w[0])) {
                        platform.hardwareReadBackBlack = true;
                    } else if ("app-busy".equals(w[0]) && w.length > 1) {
                        if ("on".equals(w[1])) platform.appBusy();
                        else platform.appIdle();
                    } else if ("refuses-paste-action".equals(w[0]) && w.length > 1) {
                        Fixtures.byRes(platform.window(Fixtures.COMPOSE).rootNode(), w[1]).refusesPasteAction(false);
                    } else if ("focus-taken-by".equals(w[0]) && w.length > 2) {
                        FakeWindow app = platform.window(Fixtures.COMPOSE);
                        Fixtures.byRes(app.rootNode(), w[1]).focusTakenBy(Fixtures.byRes(app.rootNode(), w[2]));
                    }
                    out.log("control " + line.trim());
                }
            } catch (IOException | RuntimeException e) {
                // standard input closed or a malformed line: the control channel ends, the agent serves on
            }
        }, "hostmain-control");
        t.setDaemon(true);
        t.start();
    }

    /** The ready line with the bound port added. */
    private static final class PortOutput extends LaunchOutput {
        private final LaunchOutput inner;
        private final int port;

        PortOutput(LaunchOutput inner, int port) {
            super(null);
            this.inner = inner;
            this.port = port;
        }

        @Override
        public void ready(org.json.JSONObject info) {
            try {
                info.put("port", port);
            } catch (org.json.JSONException e) {
                throw new IllegalStateException(e);
            }
            inner.ready(info);
        }

        @Override
        public synchronized void line(String text) {
            inner.line(text);
        }
    }
}
