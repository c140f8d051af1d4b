package dev.mobileagent.agent.input;

import dev.mobileagent.agent.core.AgentError;
import dev.mobileagent.agent.platform.Clock;
import dev.mobileagent.agent.platform.KeyStroke;
import dev.mobileagent.agent.platform.PNode;
import dev.mobileagent.agent.platform.Platform;
import dev.mobileagent.agent.platform.PlatformException;
import java.util.List;
import java.util.logging.Logger;

/**
 * Text input by the method the node allows: set directly (replacing the node's text), else key
 * events when the virtual key map types every character, else a paste from the clipboard, which is
 * restored afterwards (any unicode, nothing installed). `keys` and `clipboard` insert at the cursor
 * of the node, which is focused first.
 */
public final class TextEntry {
    public static final int KEYCODE_PASTE = 279;
    /** How long a paste may take to show in the field's text before it counts as not arrived. */
    static final long PASTE_ARRIVAL_MS = 1_000;
    static final long PASTE_POLL_MS = 16;
    private static final Logger LOG = Logger.getLogger("dev.mobileagent.agent");

    private final Platform platform;
    private final Clock clock;

    public TextEntry(Platform platform, Clock clock) {
        this.platform = platform;
        this.clock = clock;
    }

    /** The method {@code auto} picks for this node and text. */
    public String choose(PNode node, String text) {
        if (node.canSetText()) return "direct";
        if (platform.keyStrokesFor(text) != null) return "keys";
        return "clipboard";
    }

    /** Enters the text; returns {accepted, method}. */
    public Object[] enter(PNode node, int nodeId, String text, String method)
            throws AgentError, PlatformException, InterruptedException {
        String m = "auto".equals(method) ? choose(node, text) : method;
        boolean ok;
        switch (m) {
            case "direct":
                if (!node.canSetText()) throw AgentError.invalid("node " + nodeId + " does not accept text set directly");
                ok = node.setText(text);
                break;
            case "keys":
                List<KeyStroke> strokes = platform.keyStrokesFor(text);
                if (strokes == null) throw AgentError.invalid("no key map types every character of the text; use auto or clipboard");
                focus(node);
                ok = typeKeys(strokes);
                break;
            case "clipboard":
                ok = paste(node, text);
                break;
            default:
                throw AgentError.invalid("method must be one of auto, direct, keys, clipboard, not " + method);
        }
        return new Object[] {ok, m};
    }

    private void focus(PNode node) {
        if (!node.attrs().focused) node.focus();
    }

    private boolean typeKeys(List<KeyStroke> strokes) throws PlatformException {
        boolean ok = true;
        long down = clock.nowMs();
        for (KeyStroke k : strokes) {
            long now = clock.nowMs();
            if (k.action == 0) down = now;
            ok &= platform.injectKey(k.action, k.code, k.meta, down, now);
        }
        return ok;
    }

    /**
     * Pastes through the clipboard: the text and the restored clip are both set unseen (no
     * clipboard overlay on Android 13+), and a failure to put the user's clip back is logged, never
     * the paste's result. The paste is accepted only when the field's text changed: ACTION_PASTE, or
     * where the app refuses it, KEYCODE_PASTE with its DOWN injected waiting for the app to finish
     * it (TextView.doKeyDown pastes on the DOWN, reading the clip on the app's UI thread), so the
     * user's clip goes back only after the app read the pasted one.
     */
    private boolean paste(PNode node, String text) throws PlatformException, InterruptedException {
        Object saved = platform.saveClipboard();
        try {
            platform.setClipboardText(text, true);
            focus(node);
            String before = node.liveText();
            boolean handed = node.paste() || pasteKey();
            return handed && (text.isEmpty() || arrived(node, before));
        } finally {
            restore(saved);
        }
    }

    private boolean pasteKey() throws PlatformException {
        long down = clock.nowMs();
        boolean handled = platform.injectKeyAndWait(0, KEYCODE_PASTE, 0, down, down);
        return platform.injectKey(1, KEYCODE_PASTE, 0, down, clock.nowMs()) && handled;
    }

    /**
     * Whether the field's text changed within PASTE_ARRIVAL_MS: a toolkit that renders from state
     * (Compose) shows the pasted text in its semantics a frame after it handled the paste.
     */
    private boolean arrived(PNode node, String before) throws InterruptedException {
        long end = clock.nowMs() + PASTE_ARRIVAL_MS;
        while (true) {
            String now = node.liveText();
            if (now != null && !now.equals(before)) return true;
            if (clock.nowMs() >= end) return false;
            clock.sleepMs(PASTE_POLL_MS);
        }
    }

    private void restore(Object saved) {
        try {
            platform.restoreClipboard(saved, true);
        } catch (PlatformException | RuntimeException e) {
            LOG.warning("the previous clip could not be put back: " + e.getMessage());
        }
    }
}
