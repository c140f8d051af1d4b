package dev.mobileagent.agent.protocol;

import org.json.JSONException;
import org.json.JSONObject;

/** Builders and strict readers of protocol 1's messages (docs/protocol.md §3-7). */
public final class Messages {
    public static final int PROTOCOL = 1;
    public static final int SHELL_UID = 2000;

    private Messages() {}

    public static JSONObject of(String type) {
        return put(new JSONObject(), "type", type);
    }

    public static JSONObject put(JSONObject o, String key, Object value) {
        try {
            return o.put(key, value == null ? JSONObject.NULL : value);
        } catch (JSONException e) {
            throw new IllegalArgumentException("cannot put " + key + ": " + e.getMessage(), e);
        }
    }

    public static JSONObject refused(String code, String message) {
        return put(put(of("refused"), "code", code), "message", message);
    }

    public static JSONObject closing(String reason) {
        return put(of("closing"), "reason", reason);
    }

    public static JSONObject pong(long nonce) {
        return put(of("pong"), "nonce", nonce);
    }

    public static JSONObject ping(long nonce) {
        return put(of("ping"), "nonce", nonce);
    }

    public static JSONObject result(long id, JSONObject result) {
        return put(put(of("response"), "id", id), "result", result);
    }

    public static JSONObject error(long id, String code, String message, boolean retryable) {
        JSONObject err = put(put(put(new JSONObject(), "code", code), "message", message), "retryable", retryable);
        return put(put(of("response"), "id", id), "error", err);
    }

    public static JSONObject event(long seq, String name, JSONObject data) {
        return put(put(put(of("event"), "seq", seq), "name", name), "data", data);
    }

    /**
     * A JSON integer within a long, as org.json hands it over: an Integer or a Long (an integer literal
     * past a long is a Double: JSONTokener.readLiteral tries Long.parseLong, then Double.valueOf).
     */
    public static boolean isLong(Object v) {
        return v instanceof Integer || v instanceof Long;
    }

    /** A required integer key (a JSON integer, not a float or a string). */
    public static long requireLong(JSONObject o, String key) throws ProtocolException {
        Object v = o.opt(key);
        if (isLong(v)) return ((Number) v).longValue();
        throw new ProtocolException("a " + o.optString("type") + " without an integer `" + key + "`");
    }

    /** A required number key (an integer or not), for a key whose value out of range is answered. */
    public static Object requireNumber(JSONObject o, String key) throws ProtocolException {
        Object v = o.opt(key);
        if (v instanceof Number) return v;
        throw new ProtocolException("a " + o.optString("type") + " without a number `" + key + "`");
    }

    public static String requireString(JSONObject o, String key) throws ProtocolException {
        Object v = o.opt(key);
        if (v instanceof String) return (String) v;
        throw new ProtocolException("a " + o.optString("type") + " without a string `" + key + "`");
    }

    public static JSONObject requireObject(JSONObject o, String key) throws ProtocolException {
        Object v = o.opt(key);
        if (v instanceof JSONObject) return (JSONObject) v;
        throw new ProtocolException("a " + o.optString("type") + " without an object `" + key + "`");
    }
}
