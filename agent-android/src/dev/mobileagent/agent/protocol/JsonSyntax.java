package dev.mobileagent.agent.protocol;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Strict JSON syntax (RFC 8259), checked before org.json parses a frame: Android's org.json is
 * lenient (unquoted names and strings, single quotes, comments, trailing commas, NaN), and a frame
 * the Python codec refuses must be refused here too. Two more rules of docs/protocol.md §1:
 * <ul>
 *   <li>an object with the same name twice is refused: org.json keeps the last (JSONObject.put
 *   replaces), so {"token": WRONG, "token": RIGHT} would otherwise pass as RIGHT;</li>
 *   <li>a number past a double's range (1e400, an integer of 400 digits) reaches org.json as the
 *   largest double of its sign: org.json refuses an infinite value in an object (JSONObject.put,
 *   JSON.checkDouble: "Forbidden numeric value"), which would make the whole frame unreadable,
 *   where protocol 1 answers an out-of-range number invalid_params.</li>
 * </ul>
 */
final class JsonSyntax {
    static final int MAX_DEPTH = 512;
    private static final String MAX_DOUBLE = Double.toString(Double.MAX_VALUE);

    private final String s;
    private int i;
    /** [start, end) of each number literal whose double value is infinite. */
    private final List<int[]> infinite = new ArrayList<>();

    private JsonSyntax(String s) {
        this.s = s;
    }

    /**
     * Throws ProtocolException unless {@code text} is exactly one JSON value (whitespace around it)
     * whose objects name each key once; returns the text org.json is to parse (the same text, or
     * with each infinite number literal written as the largest double of its sign).
     */
    static String check(String text) throws ProtocolException {
        JsonSyntax p = new JsonSyntax(text);
        p.ws();
        p.value(0);
        p.ws();
        if (p.i != text.length()) throw p.error("bytes after the JSON value");
        return p.finite();
    }

    private String finite() {
        if (infinite.isEmpty()) return s;
        StringBuilder out = new StringBuilder(s.length());
        int at = 0;
        for (int[] span : infinite) {
            out.append(s, at, span[0]).append(s.charAt(span[0]) == '-' ? "-" : "").append(MAX_DOUBLE);
            at = span[1];
        }
        return out.append(s, at, s.length()).toString();
    }

    private ProtocolException error(String what) {
        return new ProtocolException("a frame that is not JSON (" + what + " at character " + i + ")");
    }

    private void ws() {
        while (i < s.length()) {
            char c = s.charAt(i);
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r') return;
            i++;
        }
    }

    private char peek() throws ProtocolException {
        if (i >= s.length()) throw error("the end of the text");
        return s.charAt(i);
    }

    private void value(int depth) throws ProtocolException {
        if (depth > MAX_DEPTH) throw error("nesting deeper than " + MAX_DEPTH);
        char c = peek();
        switch (c) {
            case '{': object(depth); return;
            case '[': array(depth); return;
            case '"': string(false); return;
            case 't': literal("true"); return;
            case 'f': literal("false"); return;
            case 'n': literal("null"); return;
            default:
                if (c == '-' || (c >= '0' && c <= '9')) {
                    number();
                    return;
                }
                throw error("an unexpected '" + c + "'");
        }
    }

    private void object(int depth) throws ProtocolException {
        i++;
        ws();
        if (peek() == '}') {
            i++;
            return;
        }
        Set<String> names = new HashSet<>();
        while (true) {
            ws();
            if (peek() != '"') throw error("a name that is not a string");
            int at = i;
            String name = string(true);
            if (!names.add(name)) throw duplicate(name, at);
            ws();
            if (peek() != ':') throw error("a missing ':'");
            i++;
            ws();
            value(depth + 1);
            ws();
            char c = peek();
            i++;
            if (c == '}') return;
            if (c != ',') throw error("a missing ',' or '}'");
        }
    }

    private void array(int depth) throws ProtocolException {
        i++;
        ws();
        if (peek() == ']') {
            i++;
            return;
        }
        while (true) {
            ws();
            value(depth + 1);
            ws();
            char c = peek();
            i++;
            if (c == ']') return;
            if (c != ',') throw error("a missing ',' or ']'");
        }
    }

    private ProtocolException duplicate(String name, int at) {
        String shown = name.length() <= 40 ? name : name.substring(0, 37) + "...";
        return new ProtocolException("a frame whose object names the key \"" + shown + "\" twice (at character " + at
            + "): a duplicate key is refused, never last-wins");
    }

    /** Reads a string; returns its value (escapes decoded) when {@code keep}: a name is compared by it. */
    private String string(boolean keep) throws ProtocolException {
        i++;
        StringBuilder value = keep ? new StringBuilder() : null;
        while (true) {
            char c = peek();
            i++;
            if (c == '"') return keep ? value.toString() : null;
            if (c < 0x20) throw error("a control character in a string");
            if (c != '\\') {
                if (keep) value.append(c);
                continue;
            }
            char e = peek();
            i++;
            int simple = "\"\\/bfnrt".indexOf(e);
            if (simple >= 0) {
                if (keep) value.append("\"\\/\b\f\n\r\t".charAt(simple));
                continue;
            }
            if (e != 'u') throw error("a bad escape");
            int code = 0;
            for (int k = 0; k < 4; k++) {
                char h = peek();
                i++;
                int d = Character.digit(h, 16);
                if (d < 0 || h > 'f') throw error("a bad \\u escape");
                code = code * 16 + d;
            }
            if (keep) value.append((char) code);
        }
    }

    private void number() throws ProtocolException {
        int start = i;
        numberSyntax();
        String literal = s.substring(start, i);
        if (literal.length() > 15 || literal.indexOf('e') >= 0 || literal.indexOf('E') >= 0) {
            if (Double.isInfinite(Double.parseDouble(literal))) infinite.add(new int[] {start, i});
        }
    }

    private void numberSyntax() throws ProtocolException {
        if (s.charAt(i) == '-') i++;
        if (peek() == '0') {
            i++;
        } else {
            digits();
        }
        if (i < s.length() && s.charAt(i) == '.') {
            i++;
            digits();
        }
        if (i < s.length() && (s.charAt(i) == 'e' || s.charAt(i) == 'E')) {
            i++;
            if (i < s.length() && (s.charAt(i) == '+' || s.charAt(i) == '-')) i++;
            digits();
        }
    }

    private void digits() throws ProtocolException {
        int start = i;
        while (i < s.length() && s.charAt(i) >= '0' && s.charAt(i) <= '9') i++;
        if (i == start) throw error("a number without digits");
    }

    private void literal(String word) throws ProtocolException {
        if (!s.startsWith(word, i)) throw error("an unknown word");
        i += word.length();
    }
}
