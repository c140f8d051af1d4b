package dev.mobileagent.agent.input;

import dev.mobileagent.agent.platform.Clock;
import dev.mobileagent.agent.platform.Platform;
import dev.mobileagent.agent.platform.PlatformException;
import java.util.ArrayList;
import java.util.List;

/**
 * Taps, long presses and swipes as timed touch events. A swipe goes down at its start, moves every
 * 8 ms along its line (at least once), and with a rest stays still that long at the end, then moves
 * one pixel on in the swipe's direction and lifts there: Android's velocity tracker takes a pointer
 * still for 40 ms as stopped, so the content stops where the pointer left it.
 */
public final class Gestures {
    public static final int DOWN = 0;
    public static final int UP = 1;
    public static final int MOVE = 2;
    public static final int STEP_MS = 8;

    private Gestures() {}

    /** One touch event at {@code atMs} after the down. */
    public static final class Step {
        public final int action;
        public final long atMs;
        public final int x;
        public final int y;

        Step(int action, long atMs, int x, int y) {
            this.action = action;
            this.atMs = atMs;
            this.x = x;
            this.y = y;
        }

        @Override
        public String toString() {
            return (action == DOWN ? "down" : action == UP ? "up" : "move") + "@" + atMs + "(" + x + "," + y + ")";
        }
    }

    /** The verdict and how many moves were injected (the resting release's pixel move included). */
    public static final class Outcome {
        public final boolean accepted;
        public final int moves;

        Outcome(boolean accepted, int moves) {
            this.accepted = accepted;
            this.moves = moves;
        }
    }

    public static List<Step> tap(int x, int y, long holdMs) {
        List<Step> steps = new ArrayList<>(2);
        steps.add(new Step(DOWN, 0, x, y));
        steps.add(new Step(UP, Math.max(0, holdMs), x, y));
        return steps;
    }

    public static List<Step> swipe(int x1, int y1, int x2, int y2, long durationMs, long restMs) {
        long duration = Math.max(0, durationMs);
        int moves = (int) Math.max(1, (duration + STEP_MS - 1) / STEP_MS);
        List<Step> steps = new ArrayList<>(moves + 3);
        steps.add(new Step(DOWN, 0, x1, y1));
        for (int i = 1; i <= moves; i++) {
            long t = i == moves ? duration : (long) i * STEP_MS;
            double f = duration == 0 ? 1.0 : (double) t / duration;
            steps.add(new Step(MOVE, t, (int) Math.round(x1 + (x2 - x1) * f), (int) Math.round(y1 + (y2 - y1) * f)));
        }
        if (restMs > 0) {
            int[] px = onePixelOn(x1, y1, x2, y2);
            long t = duration + restMs;
            steps.add(new Step(MOVE, t, x2 + px[0], y2 + px[1]));
            steps.add(new Step(UP, t, x2 + px[0], y2 + px[1]));
        } else {
            steps.add(new Step(UP, duration, x2, y2));
        }
        return steps;
    }

    /** One pixel along the swipe's direction (its dominant axis; downwards for a swipe that goes nowhere). */
    static int[] onePixelOn(int x1, int y1, int x2, int y2) {
        int dx = x2 - x1;
        int dy = y2 - y1;
        if (dx == 0 && dy == 0) return new int[] {0, 1};
        if (Math.abs(dx) >= Math.abs(dy)) return new int[] {Integer.signum(dx), 0};
        return new int[] {0, Integer.signum(dy)};
    }

    /** Injects the steps on time. Every event is injected even after a refusal, so the pointer is lifted. */
    public static Outcome perform(Platform platform, Clock clock, List<Step> steps) throws PlatformException, InterruptedException {
        long down = clock.nowMs();
        boolean accepted = true;
        int moves = 0;
        PlatformException refused = null;
        for (Step s : steps) {
            long wait = down + s.atMs - clock.nowMs();
            if (wait > 0) clock.sleepMs(wait);
            try {
                accepted &= platform.injectTouch(s.action, s.x, s.y, down, down + s.atMs);
            } catch (PlatformException e) {
                if (s.action == DOWN) throw e;
                refused = e;
            }
            if (s.action == MOVE) moves++;
        }
        if (refused != null) throw refused;
        return new Outcome(accepted, moves);
    }
}
