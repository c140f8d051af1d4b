package dev.mobileagent.agent;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import dev.mobileagent.agent.core.Agent;
import dev.mobileagent.agent.core.AgentError;
import dev.mobileagent.agent.core.Deadline;
import dev.mobileagent.agent.core.EventOut;
import dev.mobileagent.agent.fake.FakePlatform;
import dev.mobileagent.agent.fake.LoopbackTransport;
import dev.mobileagent.agent.platform.Clock;
import dev.mobileagent.agent.protocol.Frames;
import dev.mobileagent.agent.protocol.Messages;
import dev.mobileagent.agent.protocol.ProtocolException;
import dev.mobileagent.agent.server.Exiter;
import dev.mobileagent.agent.server.LaunchOutput;
import dev.mobileagent.agent.server.Server;
import dev.mobileagent.agent.server.ServerConfig;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.json.JSONArray;
import org.json.JSONException;
import org.json.JSONObject;

/** Shared helpers of the host tests: JSON, an agent on a fake platform, a server on loopback, a client. */
public final class Support {
    public static final String TOKEN = "0123456789abcdef0123456789abcdef";

    private Support() {}

    public static JSONObject obj(String json) {
        try {
            return new JSONObject(json);
        } catch (JSONException e) {
            throw new IllegalArgumentException(json, e);
        }
    }

    /** An object from key, value pairs. */
    public static JSONObject o(Object... kv) {
        JSONObject j = new JSONObject();
        for (int i = 0; i < kv.length; i += 2) Messages.put(j, (String) kv[i], kv[i + 1]);
        return j;
    }

    public static File repo() {
        String r = System.getProperty("mobile_agent.repo");
        return r != null ? new File(r) : new File("..");
    }

    /** Calls a method on the agent directly, with a generous deadline. */
    public static JSONObject call(Agent agent, Clock clock, String method, String params) throws AgentError, InterruptedException {
        return agent.handle(method, obj(params), new Deadline(clock, 10_000));
    }

    /** Every window's nodes of a snapshot result, in order. */
    public static List<JSONObject> nodes(JSONObject snapshot) {
        List<JSONObject> out = new ArrayList<>();
        JSONArray ws = snapshot.optJSONArray("windows");
        for (int i = 0; i < ws.length(); i++) {
            JSONArray ns = ws.optJSONObject(i).optJSONArray("nodes");
            for (int j = 0; j < ns.length(); j++) out.add(ns.optJSONObject(j));
        }
        return out;
    }

    public static JSONObject window(JSONObject snapshot, int id) {
        JSONArray ws = snapshot.optJSONArray("windows");
        for (int i = 0; i < ws.length(); i++) {
            if (ws.optJSONObject(i).optInt("id") == id) return ws.optJSONObject(i);
        }
        return null;
    }

    /** The first node whose key has the value, in any window. */
    public static JSONObject find(JSONObject snapshot, String key, String value) {
        for (JSONObject n : nodes(snapshot)) if (value.equals(n.optString(key, null))) return n;
        return null;
    }

    /** Events the agent sent, with a seq as the connection would number them. */
    public static final class RecordingEvents implements EventOut {
        public final List<JSONObject> events = Collections.synchronizedList(new ArrayList<JSONObject>());
        private long seq;

        @Override
        public synchronized void emit(String name, JSONObject data) {
            seq++;
            events.add(o("seq", seq, "name", name, "data", data));
        }

        @Override
        public synchronized long lastSeq() {
            return seq;
        }

        public List<JSONObject> named(String name) {
            List<JSONObject> out = new ArrayList<>();
            synchronized (events) {
                for (JSONObject e : events) if (name.equals(e.optString("name"))) out.add(e);
            }
            return out;
        }
    }

    /** Records the exit status instead of ending the JVM. */
    public static final class RecordingExiter implements Exiter {
        public volatile int status = -1;
        public final CountDownLatch exited = new CountDownLatch(1);

        @Override
        public void exit(int s) {
            status = s;
            exited.countDown();
        }

        public boolean await(long ms) throws InterruptedException {
            return exited.await(ms, TimeUnit.MILLISECONDS);
        }
    }

    /** A server on loopback over a fake platform, with its stdout and exit recorded. */
    public static final class Harness implements AutoCloseable {
        public final FakePlatform platform;
        public final LoopbackTransport transport;
        public final Server server;
        public final RecordingExiter exiter = new RecordingExiter();
        public final ByteArrayOutputStream stdout = new ByteArrayOutputStream();
        public final ServerConfig config = new ServerConfig();
        private final List<Client> clients = new ArrayList<>();

        public Harness(FakePlatform platform) throws IOException {
            this(platform, 60_000);
        }

        public Harness(FakePlatform platform, long idleExitMs) throws IOException {
            this(platform, idleExitMs, 8);
        }

        public Harness(FakePlatform platform, long idleExitMs, int workers) throws IOException {
            this.platform = platform;
            config.workers = workers;
            transport = new LoopbackTransport(0);
            config.version = Version.version();
            config.build = "7fec0cb05341";
            config.pid = 4242;
            config.socket = "mobile-agent-" + config.version + "-p1-7fec0cb05341-9f3cf6e22dae";
            config.token = TOKEN;
            config.idleExitMs = idleExitMs;
            Agent agent = new Agent(platform, Clock.SYSTEM);
            server = new Server(agent, transport, config, new LaunchOutput(stdout), exiter, Clock.SYSTEM);
            server.start();
        }

        public String stdout() {
            synchronized (stdout) {
                return new String(stdout.toByteArray(), StandardCharsets.UTF_8);
            }
        }

        public Client connect() throws IOException {
            Client c = new Client(transport.port());
            clients.add(c);
            return c;
        }

        /** A connected, authenticated and welcomed client. */
        public Client host() throws IOException, ProtocolException {
            Client c = connect();
            c.send(o("type", "auth", "token", TOKEN));
            JSONObject hello = c.read(3000);
            assertEquals("hello", hello.optString("type"));
            c.send(obj("{\"type\":\"welcome\",\"protocol\":1,\"host\":\"junit\"}"));
            // a ping answered means the welcome was processed: events flow from here on
            c.send(obj("{\"type\":\"ping\",\"nonce\":999}"));
            c.next("pong", 3000);
            return c;
        }

        @Override
        public void close() {
            for (Client c : clients) c.close();
            server.exit(0, null);
        }
    }

    /** A protocol client with a read deadline on every read. */
    public static final class Client implements AutoCloseable {
        public final Socket socket;
        private final InputStream in;
        private final OutputStream out;
        private long nextId = 1;

        Client(int port) throws IOException {
            socket = new Socket();
            socket.connect(new InetSocketAddress("127.0.0.1", port), 2000);
            socket.setSoTimeout(3000);
            in = socket.getInputStream();
            out = socket.getOutputStream();
        }

        public void send(JSONObject m) throws IOException, ProtocolException {
            Frames.write(out, m);
        }

        public void sendRaw(byte[] bytes) throws IOException {
            out.write(bytes);
            out.flush();
        }

        /** The next frame, or null at the end of the stream. */
        public JSONObject read(int timeoutMs) throws IOException, ProtocolException {
            socket.setSoTimeout(timeoutMs);
            return Frames.read(in);
        }

        /** The next frame of the type, skipping pings and events; fails at the timeout. */
        public JSONObject next(String type, int timeoutMs) throws IOException, ProtocolException {
            long end = System.currentTimeMillis() + timeoutMs;
            while (true) {
                long left = end - System.currentTimeMillis();
                if (left <= 0) throw new SocketTimeoutException("no " + type + " within " + timeoutMs + " ms");
                JSONObject m = read((int) left);
                if (m == null) throw new IOException("the agent closed the connection before a " + type);
                if (type.equals(m.optString("type"))) return m;
            }
        }

        /** Sends a request and returns its response (events and pings on the way are skipped). */
        public JSONObject request(String method, String params) throws IOException, ProtocolException {
            return request(method, params, 5000);
        }

        public JSONObject request(String method, String params, long deadlineMs) throws IOException, ProtocolException {
            long id = nextId++;
            send(o("type", "request", "id", id, "method", method, "deadline_ms", deadlineMs, "params", obj(params)));
            JSONObject r = next("response", (int) deadlineMs + 2000);
            assertEquals(id, r.optLong("id"));
            return r;
        }

        public JSONObject result(String method, String params) throws IOException, ProtocolException {
            JSONObject r = request(method, params);
            assertTrue("expected a result, got " + r, r.has("result"));
            return r.optJSONObject("result");
        }

        /** True when the agent closed the stream (end of stream or a reset) within the timeout. */
        public boolean closedWithin(int timeoutMs) throws ProtocolException {
            long end = System.currentTimeMillis() + timeoutMs;
            try {
                while (System.currentTimeMillis() < end) {
                    JSONObject m = read((int) Math.max(1, end - System.currentTimeMillis()));
                    if (m == null) return true;
                }
                return false;
            } catch (SocketTimeoutException e) {
                return false;
            } catch (IOException e) {
                return true;
            }
        }

        @Override
        public void close() {
            try {
                socket.close();
            } catch (IOException ignored) {
                // closed already
            }
        }
    }
}
