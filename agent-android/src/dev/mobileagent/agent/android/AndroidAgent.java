package dev.mobileagent.agent.android;

import dev.mobileagent.agent.Version;
import dev.mobileagent.agent.digest.BuildDigest;
import dev.mobileagent.agent.platform.PlatformException;
import dev.mobileagent.agent.server.AgentRuntime;
import dev.mobileagent.agent.server.Exiter;
import dev.mobileagent.agent.server.LaunchOutput;
import dev.mobileagent.agent.server.Server;
import dev.mobileagent.agent.server.ServerConfig;
import dev.mobileagent.agent.wrappers.ArgV0;
import dev.mobileagent.agent.wrappers.MissingApi;
import java.io.File;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.json.JSONArray;
import org.json.JSONObject;

/** The device agent's start: options, build, argv0, UI automation (with --force), socket, ready line. */
public final class AndroidAgent {
    static final long CONNECT_TIMEOUT_MS = 5_000;
    static final long FORCE_RETRY_MS = 5_000;
    static final long WINDOWS_TIMEOUT_MS = 2_000;

    private AndroidAgent() {}

    /** The command line: serve --socket NAME --idle-exit-ms MS [--force]. */
    public static final class Options {
        public String socket;
        public long idleExitMs = -1;
        public boolean force;

        /** The options, or null after printing the error line. */
        public static Options parse(String[] args, LaunchOutput out) {
            Options o = new Options();
            try {
                if (args.length == 0 || !"serve".equals(args[0])) throw new IllegalArgumentException("the first argument must be serve");
                for (int i = 1; i < args.length; i++) {
                    if ("--socket".equals(args[i]) && i + 1 < args.length) o.socket = args[++i];
                    else if ("--idle-exit-ms".equals(args[i]) && i + 1 < args.length) o.idleExitMs = Long.parseLong(args[++i]);
                    else if ("--force".equals(args[i])) o.force = true;
                    else throw new IllegalArgumentException("unknown argument " + args[i]);
                }
                if (o.socket == null || o.socket.isEmpty()) throw new IllegalArgumentException("--socket NAME is required");
                if (o.idleExitMs <= 0) throw new IllegalArgumentException("--idle-exit-ms MS (a positive number) is required");
            } catch (RuntimeException e) {
                out.error(AgentRuntime.error("usage", e.getMessage() + "; usage: serve --socket NAME --idle-exit-ms MS [--force]"));
                return null;
            }
            return o;
        }
    }

    /** Runs the agent; returns the exit status when it could not start (the server exits by itself). */
    public static int run(Options o, LaunchOutput out) {
        String token = System.getenv("MOBILE_AGENT_TOKEN");
        if (token == null || token.isEmpty()) {
            out.error(AgentRuntime.error("no_token", "MOBILE_AGENT_TOKEN is not set"));
            return 1;
        }
        ServerConfig config = new ServerConfig();
        config.version = Version.version();
        try {
            config.build = BuildDigest.ofFile(BuildDigest.firstEntry(System.getenv("CLASSPATH")));
        } catch (IOException e) {
            out.error(AgentRuntime.error("build_unreadable", "cannot read the agent's jar: " + e.getMessage()));
            return 1;
        }
        config.pid = android.os.Process.myPid();
        config.allowedUid = android.os.Process.myUid(); // peers are adbd, as the uid its shell started us as
        config.socket = o.socket;
        config.token = token;
        config.idleExitMs = o.idleExitMs;
        try {
            ArgV0.set("mobile-agent " + o.socket);
        } catch (MissingApi e) {
            out.log(e.getMessage());
        }

        JSONArray stopped = new JSONArray();
        AndroidPlatform platform;
        try {
            platform = o.force ? connectForced(config.pid, stopped) : AndroidPlatform.connect(CONNECT_TIMEOUT_MS);
        } catch (AndroidPlatform.Conflict e) {
            List<Holders.Holder> holders = Holders.scan(config.pid);
            Object holder = holders.isEmpty() ? null : holderJson(holders.get(0));
            JSONObject line = new JSONObject();
            try {
                line.put("holder", holder == null ? JSONObject.NULL : holder);
                line.put("message", e.getMessage());
            } catch (org.json.JSONException ex) {
                throw new IllegalStateException(ex);
            }
            out.conflict(line);
            return 3;
        } catch (MissingApi e) {
            out.error(AgentRuntime.error("automation_unavailable", e.getMessage()));
            return 1;
        } catch (PlatformException e) {
            out.error(AgentRuntime.error(e.code, e.getMessage()));
            return 1;
        }

        if (!platform.awaitWindows(WINDOWS_TIMEOUT_MS)) out.log("no interactive window yet; serving anyway");
        out.log("input through " + platform.injectionPath());
        AndroidTransport transport;
        try {
            transport = new AndroidTransport(o.socket);
        } catch (IOException e) {
            platform.release();
            out.error(AgentRuntime.error("socket_unavailable", "cannot listen on the abstract socket " + o.socket + ": " + e.getMessage()));
            return 1;
        }
        Server server = AgentRuntime.serve(platform, transport, config, out, Exiter.SYSTEM, stopped);
        try {
            return server.awaitExit(0);
        } catch (InterruptedException e) {
            server.exit(0, "shutdown");
            return 0;
        }
    }

    /** --force: stops every known automation client, then connects, retrying while the slot is released. */
    static AndroidPlatform connectForced(long ownPid, JSONArray stopped)
            throws AndroidPlatform.Conflict, MissingApi, PlatformException {
        for (Holders.Holder h : Holders.scan(ownPid)) {
            stop(h);
            stopped.put(holderJson(h));
        }
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(FORCE_RETRY_MS);
        while (true) {
            try {
                return AndroidPlatform.connect(CONNECT_TIMEOUT_MS);
            } catch (AndroidPlatform.Conflict e) {
                if (System.nanoTime() > end) throw e;
                sleep(200);
            }
        }
    }

    static void stop(Holders.Holder h) {
        if (h.pkg != null) {
            try {
                Process p = new ProcessBuilder("am", "force-stop", h.pkg).redirectErrorStream(true).start();
                p.getInputStream().close();
                waitFor(p, 5_000);
            } catch (IOException e) {
                // fall through to killing the pid
            }
        }
        android.os.Process.killProcess((int) h.pid);
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
        while (new File("/proc/" + h.pid).exists() && System.nanoTime() < end) sleep(50);
    }

    private static void waitFor(Process p, long ms) {
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms);
        while (System.nanoTime() < end) {
            try {
                p.exitValue();
                return;
            } catch (IllegalThreadStateException e) {
                sleep(50);
            }
        }
        p.destroy();
    }

    static JSONObject holderJson(Holders.Holder h) {
        return AgentRuntime.holder(h.pid, h.name);
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
