package dev.mobileagent.agent.fake;

import dev.mobileagent.agent.platform.KeyStroke;
import java.util.ArrayList;
import java.util.List;

/** A virtual key map for letters, digits, space and a little punctuation, with Android's key codes. */
final class FakeKeyMap {
    static final int META_SHIFT_ON = 1;
    private static final String PUNCT = " .,-@";
    private static final int[] PUNCT_CODES = {62, 56, 55, 69, 77};

    private FakeKeyMap() {}

    static List<KeyStroke> strokes(String text) {
        List<KeyStroke> out = new ArrayList<>();
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            int code;
            int meta = 0;
            if (c >= 'a' && c <= 'z') code = 29 + (c - 'a');
            else if (c >= 'A' && c <= 'Z') { code = 29 + (c - 'A'); meta = META_SHIFT_ON; }
            else if (c >= '0' && c <= '9') code = 7 + (c - '0');
            else if (PUNCT.indexOf(c) >= 0) code = PUNCT_CODES[PUNCT.indexOf(c)];
            else return null;
            out.add(new KeyStroke(0, code, meta));
            out.add(new KeyStroke(1, code, meta));
        }
        return out;
    }

    static char charFor(int code, int meta) {
        if (code >= 29 && code <= 54) return (char) ((meta & META_SHIFT_ON) != 0 ? 'A' + code - 29 : 'a' + code - 29);
        if (code >= 7 && code <= 16) return (char) ('0' + code - 7);
        for (int i = 0; i < PUNCT_CODES.length; i++) if (PUNCT_CODES[i] == code) return PUNCT.charAt(i);
        return 0;
    }
}
