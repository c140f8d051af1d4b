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
