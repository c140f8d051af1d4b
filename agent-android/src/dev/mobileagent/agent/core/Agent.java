package dev.mobileagent.agent.core;

import static dev.mobileagent.agent.protocol.Messages.put;

import dev.mobileagent.agent.input.Gestures;
import dev.mobileagent.agent.input.MultiTouch;
import dev.mobileagent.agent.input.TextEntry;
import dev.mobileagent.agent.platform.Clock;
import dev.mobileagent.agent.platform.DisplayInfo;
import dev.mobileagent.agent.platform.PNode;
import dev.mobileagent.agent.platform.Platform;
import dev.mobileagent.agent.platform.PlatformEvent;
import dev.mobileagent.agent.platform.PlatformException;
import dev.mobileagent.agent.platform.RawWindow;
import dev.mobileagent.agent.platform.Screenshot;
import dev.mobileagent.agent.tree.Caches;
import dev.mobileagent.agent.tree.NodeRecord;
import dev.mobileagent.agent.tree.SnapshotWriter;
import dev.mobileagent.agent.tree.TreeReader;
import dev.mobileagent.agent.tree.WindowMeta;
import dev.mobileagent.agent.tree.WindowRead;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.logging.Logger;
import org.json.JSONArray;
import org.json.JSONObject;

/**
 * The methods of docs/protocol.md §5 over a Platform, and the events of §6. Thread-safe: requests
 * run concurrently on the server's workers; no lock is held while a window is read.
 */
public final class Agent implements Platform.EventSink {
    private static final Logger LOG = Logger.getLogger("dev.mobileagent.agent");

    private final Platform platform;
    private final Clock clock;
    private final IdleTracker idle;
    private final Caches caches = new Caches();
    private final TreeReader reader = new TreeReader(caches);
    private final TextEntry textEntry;
    private final Toasts toasts = new Toasts();
    private volatile EventOut events = EventOut.NONE;
    private final Object inputLock = new Object();

    public Agent(Platform platform, Clock clock) {
        this.platform = platform;
        this.clock = clock;
        this.idle = new IdleTracker(clock);
        this.textEntry = new TextEntry(platform, clock);
        platform.setEventSink(this);
    }

    public void setEvents(EventOut out) {
        this.events = out == null ? EventOut.NONE : out;
    }

    public IdleTracker idle() {
        return idle;
    }

    public Platform platform() {
        return platform;
    }

    /** Runs one method; {@code shutdown} is the server's. */
    public JSONObject handle(String method, JSONObject params, Deadline deadline) throws AgentError, InterruptedException {
        Params p = new Params(params);
        try {
            switch (method) {
                case "snapshot":
                    return snapshot(p, deadline);
                case "bounds":
                    return bounds(p);
                case "tap":
                case "swipe":
                case "gesture":
                case "key":
                case "text":
                case "ime_enter":
                    return input(method, p, deadline);
                case "screenshot":
                    return screenshot(p);
                case "clipboard_get":
                    return clipboardGet();
                case "clipboard_set":
                    return clipboardSet(p);
                case "resync":
                    return resync();
                case "toasts":
                    return toasts.since(p.integer("after", 0, 0, Long.MAX_VALUE), clock.nowMs());
                default:
                    throw new AgentError("unknown_method", "unknown method " + method, false);
            }
        } catch (PlatformException e) {
            throw new AgentError(e.code, e.getMessage(), e.retryable);
        } catch (RuntimeException | Error e) {
            // anything at all, OutOfMemoryError or a LinkageError of a missing API included: an
            // uncaught throwable would reach RuntimeInit's KillApplicationHandler and end the agent
            LOG.warning(method + " failed: " + e);
            throw new AgentError("internal", method + " failed: " + e, false);
        }
    }

    // --- snapshot -------------------------------------------------------------------------------

    JSONObject snapshot(Params p, Deadline deadline) throws AgentError, PlatformException, InterruptedException {
        long idleTimeout = p.integer("idle_timeout_ms", 0, 0, 600_000);
        long idleQuiet = p.integer("idle_quiet_ms", 200, 0, 600_000);
        List<Integer> evict = p.ints("evict", false);
        boolean evictEventLess = p.bool("evict_event_less", false);
        int maxNodes = (int) p.integer("max_nodes", 5000, 0, Integer.MAX_VALUE);
        int maxDepth = (int) p.integer("max_depth", 80, 0, Integer.MAX_VALUE);

        for (int w : evict) caches.invalidate(w);
        if (evictEventLess) caches.invalidateEventLess();
        if (!evict.isEmpty() || evictEventLess) platform.dropCachedNodes();
        IdleTracker.Result waited = idle.await(idleTimeout, idleQuiet, deadline);
        long seq = events.lastSeq();

        List<RawWindow> raws = platform.windows();
        List<Integer> ids = new ArrayList<>();
        for (RawWindow w : raws) ids.add(w.id());
        caches.retainWindows(ids);

        List<RawWindow> present = new ArrayList<>();
        List<WindowRead> reads = new ArrayList<>();
        for (RawWindow w : raws) {
            WindowRead read = readWindow(w, deadline);
            if (read == null) continue;
            present.add(w);
            reads.add(read);
        }
        List<String> packages = new ArrayList<>();
        for (WindowRead r : reads) packages.add(r.packageName());
        DisplayInfo display = platform.display();
        boolean[] modal = WindowMeta.modal(present, packages, display.width, display.height,
            platform::focusedTaskBounds);
        SnapshotWriter out = new SnapshotWriter(maxNodes, maxDepth);
        for (int i = 0; i < present.size(); i++) out.add(present.get(i), reads.get(i), modal[i]);

        JSONObject result = new JSONObject();
        put(result, "windows", out.windows());
        put(result, "node_count", out.nodeCount());
        put(result, "truncated", out.truncated());
        put(result, "idle", put(put(new JSONObject(), "waited_ms", waited.waitedMs), "idle", waited.idle));
        put(result, "seq", seq);
        put(result, "display", display(display));
        return result;
    }

    /** The window from its cache when current, else read now (never waiting for another read). */
    private WindowRead readWindow(RawWindow w, Deadline deadline) throws AgentError {
        WindowRead cached = caches.current(w.id());
        if (cached != null) return cached;
        long generation = caches.generation(w.id());
        WindowRead read = reader.read(w, this::freshWindow, deadline);
        if (read == null) return null;
        caches.store(read, generation);
        if (read.changedUnderRead) {
            events.emit("window_changed", windowChanged(w.id(), new TreeSet<Integer>(), structure()));
        }
        return read;
    }

    private RawWindow freshWindow(int id) throws AgentError {
        try {
            for (RawWindow w : platform.windows()) {
                if (w.id() == id) return w;
            }
            return null;
        } catch (PlatformException e) {
            throw new AgentError(e.code, e.getMessage(), e.retryable);
        }
    }

    static JSONObject display(DisplayInfo d) {
        JSONObject o = new JSONObject();
        put(o, "width", d.width);
        put(o, "height", d.height);
        put(o, "density", d.density);
        put(o, "rotation", d.rotation);
        return o;
    }

    // --- bounds ---------------------------------------------------------------------------------

    JSONObject bounds(Params p) throws AgentError {
        JSONArray nodes = new JSONArray();
        for (int id : p.ints("ids", true)) {
            NodeRecord r = caches.node(id);
            if (r == null) continue;
            int[] b = r.node.liveBounds();
            if (b == null) continue;
            nodes.put(put(put(new JSONObject(), "id", id), "bounds", SnapshotWriter.bounds(b)));
        }
        return put(new JSONObject(), "nodes", nodes);
    }

    // --- input ----------------------------------------------------------------------------------

    /**
     * Input runs one action at a time: two gestures would interleave their touches, and two texts
     * through the clipboard would restore each other's clip. An action whose deadline passed while
     * it waited is not carried out (its caller was already told deadline_exceeded).
     */
    private JSONObject input(String method, Params p, Deadline deadline)
            throws AgentError, PlatformException, InterruptedException {
        synchronized (inputLock) {
            if (deadline != null) deadline.check(method + " (waiting for the input before it)");
            switch (method) {
                case "tap":
                    return tap(p, deadline);
                case "swipe":
                    return swipe(p, deadline);
                case "gesture":
                    return gesture(p, deadline);
                case "key":
                    return key(p);
                case "ime_enter":
                    return imeEnter(p);
                default:
                    return text(p, deadline);
            }
        }
    }

    private void acted() {
        if (!caches.invalidateEventLess().isEmpty()) platform.dropCachedNodes();
        idle.noteActivity();
    }

    JSONObject tap(Params p, Deadline deadline) throws AgentError, PlatformException, InterruptedException {
        int x = (int) p.required("x", 0, Integer.MAX_VALUE);
        int y = (int) p.required("y", 0, Integer.MAX_VALUE);
        long hold = p.integer("hold_ms", 0, 0, 60_000);
        fits(hold, deadline, "the tap");
        idle.noteActivity();
        try {
            Gestures.Outcome o = Gestures.perform(platform, clock, Gestures.tap(x, y, hold));
            return put(new JSONObject(), "accepted", o.accepted);
        } finally {
            acted();
        }
    }

    JSONObject swipe(Params p, Deadline deadline) throws AgentError, PlatformException, InterruptedException {
        int x1 = (int) p.required("x1", 0, Integer.MAX_VALUE);
        int y1 = (int) p.required("y1", 0, Integer.MAX_VALUE);
        int x2 = (int) p.required("x2", 0, Integer.MAX_VALUE);
        int y2 = (int) p.required("y2", 0, Integer.MAX_VALUE);
        long duration = p.integer("duration_ms", 300, 0, 60_000);
        long rest = p.integer("rest_ms", 0, 0, 60_000);
        fits(duration + rest, deadline, "the swipe");
        idle.noteActivity();
        try {
            Gestures.Outcome o = Gestures.perform(platform, clock, Gestures.swipe(x1, y1, x2, y2, duration, rest));
            return put(put(new JSONObject(), "accepted", o.accepted), "moves", o.moves);
        } finally {
            acted();
        }
    }

    /** Several fingers' paths as one stream of MotionEvents (input/MultiTouch, docs/protocol.md "gesture"). */
    JSONObject gesture(Params p, Deadline deadline) throws AgentError, PlatformException, InterruptedException {
        List<long[][]> paths = p.paths("paths", MultiTouch.MAX_FINGERS, 60_000);
        List<MultiTouch.Event> events = MultiTouch.events(paths);
        fits(events.get(events.size() - 1).atMs, deadline, "the gesture");
        idle.noteActivity();
        try {
            boolean accepted = MultiTouch.perform(platform, clock, events);
            return put(put(new JSONObject(), "accepted", accepted), "events", events.size());
        } finally {
            acted();
        }
    }

    private static void fits(long gestureMs, Deadline deadline, String what) throws AgentError {
        if (deadline != null && gestureMs >= deadline.remainingMs()) {
            throw new AgentError("deadline_exceeded", what + " takes " + gestureMs + " ms, longer than the request's deadline", true);
        }
    }

    JSONObject key(Params p) throws AgentError, PlatformException {
        int code = (int) p.required("code", 0, 10_000);
        int meta = (int) p.integer("meta", 0, 0, Integer.MAX_VALUE);
        idle.noteActivity();
        try {
            long now = clock.nowMs();
            boolean ok = platform.injectKey(0, code, meta, now, now);
            ok &= platform.injectKey(1, code, meta, now, clock.nowMs());
            return put(new JSONObject(), "accepted", ok);
        } finally {
            acted();
        }
    }

    /**
     * ACTION_IME_ENTER on the node (null: the focused input): the field's IME action. A node that
     * does not offer it (before API 30, or not a focused editor) answers offered false and nothing
     * is done, so the host can press ENTER instead.
     */
    JSONObject imeEnter(Params p) throws AgentError, PlatformException {
        Long nodeId = p.nullableInteger("node");
        PNode node;
        if (nodeId == null) {
            node = platform.focusedInput();
            if (node == null) throw AgentError.invalid("no node has input focus; name the node");
        } else {
            NodeRecord r = caches.node(nodeId.intValue());
            if (r == null) throw new AgentError("not_found", "node " + nodeId + " is not known to the agent", false);
            node = r.node;
        }
        idle.noteActivity();
        try {
            boolean offered = node.offersImeEnter();
            boolean accepted = offered && node.imeEnter();
            return put(put(new JSONObject(), "accepted", accepted), "offered", offered);
        } finally {
            acted();
        }
    }

    JSONObject text(Params p, Deadline deadline) throws AgentError, PlatformException, InterruptedException {
        Long nodeId = p.nullableInteger("node");
        String text = p.string("text", null);
        String method = p.string("method", "auto");
        PNode node;
        int id;
        if (nodeId == null) {
            node = platform.focusedInput();
            if (node == null) throw AgentError.invalid("no node has input focus; name the node");
            id = -1;
        } else {
            NodeRecord r = caches.node(nodeId.intValue());
            if (r == null) throw new AgentError("not_found", "node " + nodeId + " is not known to the agent", false);
            node = r.node;
            id = r.id;
        }
        idle.noteActivity();
        long budget = deadline == null ? Long.MAX_VALUE : Math.max(0, deadline.remainingMs());
        boolean pastes = "clipboard".equals("auto".equals(method) ? textEntry.choose(node, text) : method);
        if (pastes) toasts.expectSystemToasts(platform.clipboardReadRefusal() == null ? 2 : 1, clock.nowMs());
        try {
            TextEntry.Outcome done = textEntry.enter(node, id, text, method, budget);
            JSONObject result = put(put(new JSONObject(), "accepted", done.accepted), "method", done.method);
            if (done.reason != null) put(result, "reason", done.reason);
            return result;
        } finally {
            acted();
        }
    }

    // --- clipboard ------------------------------------------------------------------------------

    /**
     * The primary clip's text, null for an empty clipboard. Under the input lock, so that it never
     * reads a paste's own clip; refused (clipboard_unavailable) where a read would give nothing or
     * clear the clipboard (Platform.clipboardReadRefusal: root, a locked device). A read of a clip
     * another app set has ClipboardService show its access toast: the agent expects it.
     */
    JSONObject clipboardGet() throws AgentError, PlatformException {
        String text;
        synchronized (inputLock) {
            String refusal = platform.clipboardReadRefusal();
            if (refusal != null) throw new AgentError("clipboard_unavailable", refusal, false);
            toasts.expectSystemToasts(1, clock.nowMs());
            text = platform.readClipboardText();
        }
        return put(new JSONObject(), "text", text == null ? JSONObject.NULL : text);
    }

    /**
     * Sets the primary clip to the text (null clears the clipboard), unseen: no clipboard overlay
     * on Android 13+. Under the input lock, so that a paste never restores over it.
     */
    JSONObject clipboardSet(Params p) throws AgentError, PlatformException {
        String text = p.nullableString("text");
        synchronized (inputLock) {
            if (text == null) {
                platform.restoreClipboard(null, true);
            } else {
                platform.setClipboardText(text, true);
            }
        }
        return new JSONObject();
    }

    // --- screenshot, resync ---------------------------------------------------------------------

    JSONObject screenshot(Params p) throws AgentError, PlatformException {
        String format = p.string("format", "png");
        if (!"png".equals(format) && !"jpeg".equals(format)) throw AgentError.invalid("format must be png or jpeg");
        int quality = (int) p.integer("quality", 80, 1, 100);
        Screenshot s = platform.screenshot(format, quality);
        if (s == null || s.data == null || s.data.length == 0) throw new AgentError("screenshot_failed", "the capture returned no image", false);
        JSONObject o = new JSONObject();
        put(o, "format", s.format);
        put(o, "width", s.width);
        put(o, "height", s.height);
        put(o, "rotation", s.rotation);
        put(o, "data", Base64Codec.encode(s.data));
        if (s.capture != null) put(o, "capture", s.capture);
        if (s.fallback != null) put(o, "fallback", s.fallback);
        return o;
    }

    JSONObject resync() throws AgentError {
        try {
            platform.windows();
        } catch (PlatformException e) {
            throw new AgentError("busy", "cannot resync now: " + e.getMessage(), true);
        }
        caches.clear();
        platform.dropCachedNodes();
        return put(new JSONObject(), "seq", events.lastSeq());
    }

    // --- events ---------------------------------------------------------------------------------

    @Override
    public void onEvent(PlatformEvent e) {
        idle.noteActivity();
        try {
            if (e.kind == PlatformEvent.WINDOWS) {
                windowsChanged();
            } else if (e.kind == PlatformEvent.CONTENT) {
                contentChanged(e);
            } else if (e.kind == PlatformEvent.TOAST) {
                toasts.add(e.text, e.packageName, e.className, e.atMs);
            }
        } catch (RuntimeException | Error ex) {
            LOG.warning("event handling failed: " + ex);
        }
    }

    private void windowsChanged() {
        List<Integer> ids = new ArrayList<>();
        try {
            for (RawWindow w : platform.windows()) ids.add(w.id());
        } catch (PlatformException ex) {
            return;
        }
        caches.retainWindows(ids);
        JSONArray a = new JSONArray();
        for (int id : ids) a.put(id);
        events.emit("windows_changed", put(new JSONObject(), "windows", a));
    }

    private void contentChanged(PlatformEvent e) {
        Boolean sends = caches.sendsChangeEvents(e.windowId);
        caches.invalidate(e.windowId);
        if (Boolean.FALSE.equals(sends)) return;
        TreeSet<Integer> nodes = new TreeSet<>();
        for (Object key : e.nodeKeys) {
            int id = caches.knownId(e.windowId, key);
            if (id > 0) nodes.add(id);
        }
        events.emit("window_changed", windowChanged(e.windowId, nodes, new TreeSet<String>(e.kinds)));
    }

    private static TreeSet<String> structure() {
        TreeSet<String> s = new TreeSet<>();
        s.add("structure");
        return s;
    }

    private static JSONObject windowChanged(int window, TreeSet<Integer> nodes, TreeSet<String> kinds) {
        JSONArray n = new JSONArray();
        for (int id : nodes) n.put(id);
        JSONArray k = new JSONArray();
        for (String s : kinds) k.put(s);
        return put(put(put(new JSONObject(), "window", window), "nodes", n), "kinds", k);
    }
}
