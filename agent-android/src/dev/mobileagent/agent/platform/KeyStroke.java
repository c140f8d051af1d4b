package dev.mobileagent.agent.platform;

/** One key event a key map produced for a character: action 0 down, 1 up. */
public final class KeyStroke {
    public final int action;
    public final int code;
    public final int meta;

    public KeyStroke(int action, int code, int meta) {
        this.action = action;
        this.code = code;
        this.meta = meta;
    }
}
