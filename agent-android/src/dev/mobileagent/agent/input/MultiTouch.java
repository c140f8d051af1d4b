package dev.mobileagent.agent.input;

import dev.mobileagent.agent.platform.Clock;
import dev.mobileagent.agent.platform.Platform;
import dev.mobileagent.agent.platform.PlatformException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Several fingers as one stream of MotionEvents (docs/protocol.md, "gesture"). Each path is a
 * finger, points {x, y, tMs}: down at the first, moving through the others, lifting at the last.
 * The events are what InputReader's TouchInputMapper::dispatchTouches makes of a touchscreen's
 * frames (frameworks/native services/inputflinger/reader/mapper/TouchInputMapper.cpp): at each time
 * one ACTION_MOVE carrying every pointer down when any moved, then the fingers that lift
 * (ACTION_POINTER_UP at the pointer's index, ACTION_UP for the last; lowest id first), then the
 * fingers that go down (ACTION_DOWN for the first, else ACTION_POINTER_DOWN at the new pointer's
 * index), each taking the lowest pointer id not in use. Every event carries the pointers down,
 * ordered by id, and the gesture's down time, as InputDispatcher's validateMotionEvent and the
 * InputVerifier expect (frameworks/native InputDispatcher.cpp, libs/input/rust/input_verifier.rs).
 */
public final class MultiTouch {
    public static final int ACTION_DOWN = 0;
    public static final int ACTION_UP = 1;
    public static final int ACTION_MOVE = 2;
    public static final int ACTION_POINTER_DOWN = 5;
    public static final int ACTION_POINTER_UP = 6;
    public static final int INDEX_SHIFT = 8;
    public static final int MAX_FINGERS = 10;

    private MultiTouch() {}

    /** One MotionEvent at {@code atMs} from the gesture's start; the pointers ordered by id. */
    public static final class Event {
        public final int action;
        public final long atMs;
        public final long downAtMs;
        public final int[] ids;
        public final int[] xs;
        public final int[] ys;

        Event(int action, long atMs, long downAtMs, TreeMap<Integer, int[]> down) {
            this.action = action;
            this.atMs = atMs;
            this.downAtMs = downAtMs;
            int n = down.size();
            ids = new int[n];
            xs = new int[n];
            ys = new int[n];
            int i = 0;
            for (java.util.Map.Entry<Integer, int[]> e : down.entrySet()) {
                ids[i] = e.getKey();
                xs[i] = e.getValue()[0];
                ys[i] = e.getValue()[1];
                i++;
            }
        }

        public int masked() {
            return action & 0xff;
        }

        @Override
        public String toString() {
            String[] names = {"DOWN", "UP", "MOVE", "CANCEL", "OUTSIDE", "POINTER_DOWN", "POINTER_UP"};
            int m = masked();
            String index = m == ACTION_POINTER_DOWN || m == ACTION_POINTER_UP ? "(" + (action >> INDEX_SHIFT) + ")" : "";
            return names[m] + index + "@" + atMs + Arrays.toString(ids);
        }
    }

    /** The MotionEvents of the paths (class doc); each path a list of {x, y, tMs}. */
    public static List<Event> events(List<long[][]> paths) {
        TreeSet<Long> times = new TreeSet<>();
        for (long[][] path : paths) for (long[] point : path) times.add(point[2]);
        TreeMap<Integer, int[]> down = new TreeMap<>();
        int[] idOf = new int[paths.size()];
        Arrays.fill(idOf, -1);
        List<Event> out = new ArrayList<>();
        long downAt = 0;
        for (long t : times) {
            boolean moved = false;
            for (int i = 0; i < paths.size(); i++) {
                long[] point = lastAt(paths.get(i), t);
                if (idOf[i] < 0 || point == null) continue;
                int[] was = down.get(idOf[i]);
                if (was[0] != point[0] || was[1] != point[1]) {
                    down.put(idOf[i], new int[] {(int) point[0], (int) point[1]});
                    moved = true;
                }
            }
            if (moved) out.add(new Event(ACTION_MOVE, t, downAt, down));
            for (int id : new ArrayList<>(down.keySet())) {
                int i = pathOf(idOf, id);
                long[][] path = paths.get(i);
                if (path[path.length - 1][2] != t) continue;
                if (down.size() == 1) {
                    out.add(new Event(ACTION_UP, t, downAt, down));
                } else {
                    out.add(new Event(ACTION_POINTER_UP | (indexOf(down, id) << INDEX_SHIFT), t, downAt, down));
                }
                down.remove(id);
                idOf[i] = -1;
            }
            for (int i = 0; i < paths.size(); i++) {
                long[][] path = paths.get(i);
                if (path[0][2] != t || idOf[i] >= 0 || path[path.length - 1][2] <= t) continue;
                int id = 0;
                while (down.containsKey(id)) id++;
                idOf[i] = id;
                if (down.isEmpty()) downAt = t;
                down.put(id, new int[] {(int) path[0][0], (int) path[0][1]});
                if (down.size() == 1) {
                    out.add(new Event(ACTION_DOWN, t, downAt, down));
                } else {
                    out.add(new Event(ACTION_POINTER_DOWN | (indexOf(down, id) << INDEX_SHIFT), t, downAt, down));
                }
            }
        }
        return out;
    }

    private static long[] lastAt(long[][] path, long t) {
        for (int k = path.length - 1; k >= 1; k--) if (path[k][2] == t) return path[k];
        return null;
    }

    private static int pathOf(int[] idOf, int id) {
        for (int i = 0; i < idOf.length; i++) if (idOf[i] == id) return i;
        throw new IllegalStateException("no path holds pointer " + id);
    }

    private static int indexOf(TreeMap<Integer, int[]> down, int id) {
        return down.headMap(id).size();
    }

    /**
     * Injects the events on time from now, each with its own event time. Every event is injected
     * even after a refusal, so the fingers are lifted; the first refusal is thrown at the end.
     */
    public static boolean perform(Platform platform, Clock clock, List<Event> events)
            throws PlatformException, InterruptedException {
        long start = clock.nowMs();
        boolean accepted = true;
        PlatformException refused = null;
        for (Event e : events) {
            long wait = start + e.atMs - clock.nowMs();
            if (wait > 0) clock.sleepMs(wait);
            try {
                accepted &= platform.injectMotion(e.action, e.ids, e.xs, e.ys, start + e.downAtMs, start + e.atMs);
            } catch (PlatformException ex) {
                if (e.masked() == ACTION_DOWN && refused == null && e == events.get(0)) throw ex;
                if (refused == null) refused = ex;
            }
        }
        if (refused != null) throw refused;
        return accepted;
    }
}
