package dev.mobileagent.agent.core;

import java.util.ArrayList;
import java.util.List;
import org.json.JSONArray;
import org.json.JSONObject;

/** Strict readers of a request's params: a wrong type or range is invalid_params, never a guess. */
public final class Params {
    private final JSONObject p;

    public Params(JSONObject params) {
        this.p = params == null ? new JSONObject() : params;
    }

    private static boolean isInt(Object v) {
        return v instanceof Integer || v instanceof Long;
    }

    public long integer(String key, long dflt, long min, long max) throws AgentError {
        if (!p.has(key) || p.isNull(key)) return dflt;
        return checked(key, p.opt(key), min, max);
    }

    public long required(String key, long min, long max) throws AgentError {
        if (!p.has(key) || p.isNull(key)) throw AgentError.invalid("`" + key + "` is required");
        return checked(key, p.opt(key), min, max);
    }

    private static long checked(String key, Object v, long min, long max) throws AgentError {
        if (!isInt(v)) throw AgentError.invalid("`" + key + "` must be an integer");
        long n = ((Number) v).longValue();
        if (n < min || n > max) throw AgentError.invalid("`" + key + "` must be within " + min + ".." + max + ", not " + n);
        return n;
    }

    /** An integer or null (missing counts as null). */
    public Long nullableInteger(String key) throws AgentError {
        if (!p.has(key) || p.isNull(key)) return null;
        return checked(key, p.opt(key), 1, Integer.MAX_VALUE);
    }

    public boolean bool(String key, boolean dflt) throws AgentError {
        if (!p.has(key) || p.isNull(key)) return dflt;
        Object v = p.opt(key);
        if (!(v instanceof Boolean)) throw AgentError.invalid("`" + key + "` must be true or false");
        return (Boolean) v;
    }

    /** A string, or null when the key is missing or null. */
    public String nullableString(String key) throws AgentError {
        if (!p.has(key) || p.isNull(key)) return null;
        Object v = p.opt(key);
        if (!(v instanceof String)) throw AgentError.invalid("`" + key + "` must be a string or null");
        return (String) v;
    }

    public String string(String key, String dflt) throws AgentError {
        if (!p.has(key) || p.isNull(key)) {
            if (dflt == null) throw AgentError.invalid("`" + key + "` is required");
            return dflt;
        }
        Object v = p.opt(key);
        if (!(v instanceof String)) throw AgentError.invalid("`" + key + "` must be a string");
        return (String) v;
    }

    /**
     * Finger paths (the `gesture` method): 1 to {@code maxPaths} lists of at least two points
     * [x, y, t_ms], integers, x and y within an int and at least 0, t within 0..{@code maxMs} and
     * never going back, the last after the first.
     */
    public List<long[][]> paths(String key, int maxPaths, long maxMs) throws AgentError {
        Object v = p.opt(key);
        if (!(v instanceof JSONArray) || ((JSONArray) v).length() == 0) {
            throw AgentError.invalid("`" + key + "` must be a non-empty list of finger paths");
        }
        JSONArray a = (JSONArray) v;
        if (a.length() > maxPaths) throw AgentError.invalid("at most " + maxPaths + " paths (fingers), not " + a.length());
        List<long[][]> out = new ArrayList<>();
        for (int i = 0; i < a.length(); i++) out.add(path(i, a.opt(i), maxMs));
        return out;
    }

    private static long[][] path(int index, Object v, long maxMs) throws AgentError {
        if (!(v instanceof JSONArray) || ((JSONArray) v).length() < 2) {
            throw AgentError.invalid("path " + index + " must be a list of at least two points [x, y, t_ms]");
        }
        JSONArray a = (JSONArray) v;
        long[][] points = new long[a.length()][];
        for (int k = 0; k < a.length(); k++) {
            Object e = a.opt(k);
            if (!(e instanceof JSONArray) || ((JSONArray) e).length() != 3) {
                throw AgentError.invalid("path " + index + ": a point is [x, y, t_ms], integers");
            }
            JSONArray pt = (JSONArray) e;
            long[] point = new long[3];
            for (int c = 0; c < 3; c++) {
                Object n = pt.opt(c);
                if (!isInt(n)) throw AgentError.invalid("path " + index + ": a point is [x, y, t_ms], integers");
                point[c] = ((Number) n).longValue();
            }
            if (point[0] < 0 || point[0] > Integer.MAX_VALUE || point[1] < 0 || point[1] > Integer.MAX_VALUE
                    || point[2] < 0 || point[2] > maxMs) {
                throw AgentError.invalid("path " + index + ": point " + pt + " is out of range");
            }
            if (k > 0 && point[2] < points[k - 1][2]) {
                throw AgentError.invalid("path " + index + ": its times go back at " + pt);
            }
            points[k] = point;
        }
        if (points[points.length - 1][2] <= points[0][2]) {
            throw AgentError.invalid("path " + index + " lifts at its touch-down's time: give it a later last point");
        }
        return points;
    }

    public List<Integer> ints(String key, boolean required) throws AgentError {
        List<Integer> out = new ArrayList<>();
        if (!p.has(key) || p.isNull(key)) {
            if (required) throw AgentError.invalid("`" + key + "` is required");
            return out;
        }
        Object v = p.opt(key);
        if (!(v instanceof JSONArray)) throw AgentError.invalid("`" + key + "` must be a list of integers");
        JSONArray a = (JSONArray) v;
        for (int i = 0; i < a.length(); i++) {
            Object e = a.opt(i);
            if (!isInt(e)) throw AgentError.invalid("`" + key + "` must be a list of integers");
            long n = ((Number) e).longValue();
            if (n < Integer.MIN_VALUE || n > Integer.MAX_VALUE) {
                throw AgentError.invalid("`" + key + "` must be a list of ids within an int, not " + n); // never truncated
            }
            out.add((int) n);
        }
        return out;
    }
}
