package dev.mobileagent.agent.protocol;

/**
 * Strict JSON syntax (RFC 8259), checked before org.json parses a frame: Android's org.json is
 * lenient (unquoted names and strings, single quotes, comments, trailing commas, NaN), and a frame
 * the Python codec refuses must be refused here too.
 */
final class JsonSyntax {
    static final int MAX_DEPTH = 512;

    private final String s;
    private int i;

    private JsonSyntax(String s) {
        this.s = s;
    }

    /** Throws ProtocolException unless {@code text} is exactly one JSON value (whitespace around it). */
    static void check(String text) throws ProtocolException {
        JsonSyntax p = new JsonSyntax(text);
        p.ws();
        p.value(0);
        p.ws();
        if (p.i != text.length()) throw p.error("bytes after the JSON value");
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
            case '"': string(); return;
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
        while (true) {
            ws();
            if (peek() != '"') throw error("a name that is not a string");
            string();
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

    private void string() throws ProtocolException {
        i++;
        while (true) {
            char c = peek();
            i++;
            if (c == '"') return;
            if (c < 0x20) throw error("a control character in a string");
            if (c != '\\') continue;
            char e = peek();
            i++;
            if ("\"\\/bfnrt".indexOf(e) >= 0) continue;
            if (e != 'u') throw error("a bad escape");
            for (int k = 0; k < 4; k++) {
                char h = peek();
                i++;
                if (Character.digit(h, 16) < 0) throw error("a bad \\u escape");
            }
        }
    }

    private void number() throws ProtocolException {
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
