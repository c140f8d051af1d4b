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
 *
 * <p>Focus is decided live, never from a snapshot: an auto-advancing OTP box, an IME "next" or a
 * delayed requestFocus moves it between the host's read and the text request. Before every key
 * DOWN and before KEYCODE_PASTE the platform's input focus (UiAutomation.findFocus(FOCUS_INPUT))
 * must be the target node, else the text is refused, {@code accepted: false} with the reason, and
 * nothing more is injected.
 */
public final class TextEntry {
    public static final int KEYCODE_PASTE = 279;
    /** How long a paste may take to show in the field's text before it counts as not arrived. */
    static final long PASTE_ARRIVAL_MS = 1_000;
    static final long PASTE_POLL_MS = 16;
    /**
     * How long a KEYCODE_PASTE may hold the input lock waiting for the app to finish it (the
     * request's deadline may make it shorter); InputManagerService would wait up to 30 s.
     */
    public static final long PASTE_KEY_WAIT_MS = 2_000;
    private static final Logger LOG = Logger.getLogger("dev.mobileagent.agent");

    private final Platform platform;
    private final Clock clock;

    public TextEntry(Platform platform, Clock clock) {
        this.platform = platform;
        this.clock = clock;
    }

    /** What entering the text came to: accepted, the method used, and why not when refused. */
    public static final class Outcome {
        public final boolean accepted;
        public final String method;
        /** Why the text was not entered (null when accepted, or refused by the platform without words). */
        public final String reason;

        Outcome(boolean accepted, String method, String reason) {
            this.accepted = accepted;
            this.method = method;
            this.reason = reason;
        }
    }

    /** Thrown inside a method when the text cannot go on: the outcome's reason. */
    private static final class Refused extends Exception {
        Refused(String reason) {
            super(reason);
        }
    }

    /** The method {@code auto} picks for this node and text. */
    public String choose(PNode node, String text) {
        if (node.canSetText()) return "direct";
        if (platform.keyStrokesFor(text) != null) return "keys";
        return "clipboard";
    }

    /**
     * Enters the text; {@code budgetMs} is what is left of the request's deadline (Long.MAX_VALUE
     * for none).
     */
    public Outcome enter(PNode node, int nodeId, String text, String method, long budgetMs)
            throws AgentError, PlatformException, InterruptedException {
        String m = "auto".equals(method) ? choose(node, text) : method;
        try {
            switch (m) {
                case "direct":
                    if (!node.canSetText()) throw AgentError.invalid("node " + nodeId + " does not accept text set directly");
                    return new Outcome(node.setText(text), m, null);
                case "keys":
                    List<KeyStroke> strokes = platform.keyStrokesFor(text);
                    if (strokes == null) throw AgentError.invalid("no key map types every character of the text; use auto or clipboard");
                    focus(node, nodeId);
                    return new Outcome(typeKeys(node, nodeId, strokes), m, null);
                case "clipboard":
                    return paste(node, nodeId, text, budgetMs);
                default:
                    throw AgentError.invalid("method must be one of auto, direct, keys, clipboard, not " + method);
            }
        } catch (Refused r) {
            return new Outcome(false, m, r.getMessage());
        }
    }

    /** Gives the node input focus unless the live focus is on it already. */
    private void focus(PNode node, int nodeId) throws PlatformException, Refused {
        if (!hasLiveFocus(node)) node.focus();
        requireFocus(node, nodeId);
    }

    private boolean hasLiveFocus(PNode node) throws PlatformException {
        PNode live = platform.focusedInput();
        return live != null && live.key().equals(node.key());
    }

    /** The live input focus is the target node, or the text stops here. */
    private void requireFocus(PNode node, int nodeId) throws PlatformException, Refused {
        PNode live = platform.focusedInput();
        if (live != null && live.key().equals(node.key())) return;
        String target = nodeId > 0 ? "node " + nodeId : "the focused node";
        if (live == null) throw new Refused("input focus left " + target + " (no field has it now): nothing more was typed");
        String other = live.attrs().res != null ? " (" + live.attrs().res + ")" : "";
        throw new Refused("input focus moved from " + target + " to another field" + other + ": nothing more was typed");
    }

    private boolean typeKeys(PNode node, int nodeId, List<KeyStroke> strokes) throws PlatformException, Refused {
        boolean ok = true;
        long down = clock.nowMs();
        for (KeyStroke k : strokes) {
            if (k.action == 0) requireFocus(node, nodeId);
            long now = clock.nowMs();
            if (k.action == 0) down = now;
            ok &= platform.injectKey(k.action, k.code, k.meta, down, now);
        }
        return ok;
    }

    /**
     * Pastes through the clipboard: the text and the restored clip are both set unseen (no
     * clipboard overlay on Android 13+), and a failure to put the user's clip back is logged, never
     * the paste's result. The paste is accepted only when the field's text came to hold the pasted
     * text (for a password field, whose text reads masked, grew by its length): ACTION_PASTE, or
     * where the app refuses it, KEYCODE_PASTE with its DOWN injected waiting for the app to finish
     * it (TextView.doKeyDown pastes on the DOWN, reading the clip on the app's UI thread), so the
     * user's clip goes back only after the app read the pasted one. A KEYCODE_PASTE the app has not
     * finished within PASTE_KEY_WAIT_MS (or the deadline) leaves the pasted clip in place (restoring
     * would have the pending paste insert the user's clip) and is not accepted. Where the clipboard
     * may not be read (Platform.clipboardReadRefusal: root, a locked device), nothing is saved or
     * restored.
     */
    private Outcome paste(PNode node, int nodeId, String text, long budgetMs)
            throws PlatformException, InterruptedException, Refused {
        String refusal = platform.clipboardReadRefusal();
        Object saved = refusal == null ? platform.saveClipboard() : Platform.UNREADABLE_CLIP;
        boolean restore = true;
        try {
            platform.setClipboardText(text, true);
            focus(node, nodeId);
            String before = node.liveText();
            if (node.paste()) return arrivedOutcome(node, before, text);
            requireFocus(node, nodeId);
            Platform.KeyWait key = pasteKey(Math.min(PASTE_KEY_WAIT_MS, budgetMs));
            if (key == Platform.KeyWait.PENDING) {
                restore = false;
                return new Outcome(false, "clipboard", "the app did not finish the paste key within "
                    + Math.min(PASTE_KEY_WAIT_MS, budgetMs) + " ms: the pasted text stays on the clipboard");
            }
            if (key == Platform.KeyWait.REFUSED) return new Outcome(false, "clipboard", null);
            return arrivedOutcome(node, before, text);
        } finally {
            if (restore) restore(saved);
        }
    }

    private Outcome arrivedOutcome(PNode node, String before, String text) throws InterruptedException {
        if (text.isEmpty() || arrived(node, before, text)) return new Outcome(true, "clipboard", null);
        return new Outcome(false, "clipboard", "the field's text did not come to hold the pasted text");
    }

    private Platform.KeyWait pasteKey(long waitMs) throws PlatformException {
        long down = clock.nowMs();
        Platform.KeyWait handled = platform.injectKeyAndWait(0, KEYCODE_PASTE, 0, down, down, Math.max(0, waitMs));
        boolean up = platform.injectKey(1, KEYCODE_PASTE, 0, down, clock.nowMs());
        return handled == Platform.KeyWait.HANDLED && !up ? Platform.KeyWait.REFUSED : handled;
    }

    /**
     * Whether the field's text came to hold the pasted text within PASTE_ARRIVAL_MS (a toolkit that
     * renders from state, Compose, shows it in its semantics a frame after it handled the paste).
     * Any change is not enough: a clip set that silently failed pastes the user's old clip. A
     * password field reads masked, so there the text must have grown by the pasted length.
     */
    private boolean arrived(PNode node, String before, String text) throws InterruptedException {
        boolean masked = node.attrs().password;
        long end = clock.nowMs() + PASTE_ARRIVAL_MS;
        while (true) {
            String now = node.liveText();
            if (now != null && holds(now, before, text, masked)) return true;
            if (clock.nowMs() >= end) return false;
            clock.sleepMs(PASTE_POLL_MS);
        }
    }

    static boolean holds(String now, String before, String text, boolean masked) {
        int had = before == null ? 0 : before.length();
        if (masked) return now.length() >= had + text.length() && !now.equals(before);
        return now.contains(text) && !now.equals(before);
    }

    private void restore(Object saved) {
        try {
            platform.restoreClipboard(saved, true);
        } catch (PlatformException | RuntimeException e) {
            LOG.warning("the previous clip could not be put back: " + e.getMessage());
        }
    }
}
