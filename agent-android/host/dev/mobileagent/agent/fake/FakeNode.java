package dev.mobileagent.agent.fake;

import dev.mobileagent.agent.platform.NodeAttrs;
import dev.mobileagent.agent.platform.PNode;
import java.util.ArrayList;
import java.util.List;

/** A node of the fake UI. Its key is itself; a torn-down node keeps its attributes but loses its children. */
public final class FakeNode implements PNode {
    public final NodeAttrs a = new NodeAttrs();
    final List<FakeNode> kids = new ArrayList<>();
    FakeWindow window;
    volatile boolean alive = true;
    boolean acceptsSetText;
    /** A field whose paste action (ACTION_PASTE) the app refuses: performAction returns false. */
    boolean refusesPasteAction;
    /** A field that does nothing with KEYCODE_PASTE (a custom view without TextView's key handling). */
    boolean ignoresPasteKey;
    Runnable onClick;
    /** The app's IME action handler (an OnEditorActionListener), run by ACTION_IME_ENTER; or null. */
    Runnable onImeAction;
    public int imeEnterCalls;
    /**
     * The field that takes input focus right after this one gets it (a form's delayed requestFocus
     * on its first field), or null.
     */
    FakeNode focusTakenBy;
    /** The field input focus moves to once a character is typed here (an auto-advancing OTP box), or null. */
    FakeNode advancesTo;
    public int setTextCalls;
    public int pasteCalls;
    /** For a scrollable list: how far its content moved, in pixels. */
    public int scrolled;
    /** Per child index, how many more getChild calls return null (-1: every one, as a WebView's). */
    final java.util.Map<Integer, Integer> nullReads = new java.util.HashMap<>();
    /** How many getChild calls the agent made on this node. */
    public int childReads;

    public static FakeNode of(String className) {
        FakeNode n = new FakeNode();
        n.a.className = className;
        return n;
    }

    public FakeNode text(String t) { a.text = t; return this; }
    public FakeNode desc(String d) { a.desc = d; return this; }
    public FakeNode res(String r) { a.res = r; return this; }
    public FakeNode hint(String h) { a.hint = h; return this; }
    public FakeNode pkg(String p) { a.pkg = p; return this; }
    public FakeNode bounds(int l, int t, int r, int b) { a.bounds = new int[] {l, t, r, b}; return this; }
    public FakeNode clickable() { a.clickable = true; a.focusable = true; return this; }
    public FakeNode invisible() { a.visible = false; return this; }
    public FakeNode provider() { a.fromProvider = true; return this; }
    public FakeNode item(int index) { a.itemIndex = index; return this; }
    public FakeNode onClick(Runnable r) { onClick = r; a.clickable = true; return this; }
    public FakeNode role(String r) { a.role = r; return this; }
    public FakeNode state(String s) { a.state = s; return this; }
    public FakeNode error(String e) { a.error = e; return this; }
    public FakeNode actions(String... names) { a.actions.addAll(java.util.Arrays.asList(names)); return this; }
    public FakeNode unimportant() { a.important = false; return this; }
    public FakeNode labeledBy(FakeNode label) { a.labeledBy = label; return this; }
    public FakeNode traversalBefore(FakeNode other) { a.traversalBefore = other; return this; }
    public FakeNode traversalAfter(FakeNode other) { a.traversalAfter = other; return this; }

    /** A range (a slider, a progress bar): type int, float or percent. */
    public FakeNode range(String type, double min, double max, double current) {
        a.range = new NodeAttrs.RangeInfo();
        a.range.type = type;
        a.range.min = min;
        a.range.max = max;
        a.range.current = current;
        return this;
    }

    /** An editable field; {@code direct} says whether it accepts ACTION_SET_TEXT. */
    public FakeNode editable(boolean direct) {
        a.editable = true;
        a.focusable = true;
        a.clickable = true;
        acceptsSetText = direct;
        return this;
    }

    /** Focus given to this field moves on to {@code other} at once (a delayed requestFocus there). */
    public FakeNode focusTakenBy(FakeNode other) { focusTakenBy = other; return this; }

    /** A character typed here moves input focus to {@code next} (an OTP box). */
    public FakeNode advancesTo(FakeNode next) { advancesTo = next; return this; }

    /** A password field: its text reads masked, one bullet per character, as TextView's transformation shows it. */
    public FakeNode password() { a.password = true; return this; }

    /** ACTION_PASTE is refused; {@code keyToo}: KEYCODE_PASTE does nothing either. */
    public FakeNode refusesPasteAction(boolean keyToo) {
        refusesPasteAction = true;
        ignoresPasteKey = keyToo;
        return this;
    }

    public FakeNode scrollable(boolean vertical, Integer items) {
        a.scrollable = true;
        a.scroll = new NodeAttrs.ScrollInfo();
        a.scroll.vertical = vertical;
        a.scroll.horizontal = !vertical;
        a.scroll.canForward = true;
        a.scroll.items = items;
        return this;
    }

    /**
     * getChild(index) returns null for the next {@code times} calls (-1: always), as the platform
     * does for a child it cannot fetch: a provider's or WebView's node, an embedded hierarchy, a
     * binder timeout.
     */
    public FakeNode nullChild(int index, int times) {
        synchronized (FakeNode.class) {
            nullReads.put(index, times);
        }
        return this;
    }

    public FakeNode add(FakeNode... children) {
        for (FakeNode c : children) kids.add(c);
        return this;
    }

    /** What a click on the node does in the app. */
    public void click() {
        if (onClick != null) onClick.run();
    }

    public List<FakeNode> children() {
        return kids;
    }

    /** The text the app shows now, after handling the input queued for it. */
    public String currentText() {
        letAppHandleQueuedInput();
        synchronized (FakeNode.class) {
            return a.text;
        }
    }

    private void letAppHandleQueuedInput() {
        FakeWindow w = window;
        FakePlatform p = w == null ? null : w.platform;
        if (p != null) p.handleQueuedInput();
    }

    @Override
    public Object key() {
        return this;
    }

    @Override
    public NodeAttrs attrs() {
        synchronized (FakeNode.class) {
            return copy(a);
        }
    }

    @Override
    public int childCount() {
        return kids.size();
    }

    @Override
    public PNode child(int index) {
        if (window != null) window.beforeChildRead(this, index);
        synchronized (FakeNode.class) {
            childReads++;
            Integer nulls = nullReads.get(index);
            if (nulls != null && nulls != 0) {
                if (nulls > 0) nullReads.put(index, nulls - 1);
                return null;
            }
        }
        if (!alive || index >= kids.size()) return null;
        return kids.get(index);
    }

    @Override
    public int[] liveBounds() {
        letAppHandleQueuedInput();
        return alive ? a.bounds.clone() : null;
    }

    @Override
    public String liveText() {
        letAppHandleQueuedInput();
        synchronized (FakeNode.class) {
            if (!alive || a.text == null) return null;
            return a.password ? masked(a.text) : a.text;
        }
    }

    static String masked(String text) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < text.length(); i++) b.append('\u2022');
        return b.toString();
    }

    @Override
    public boolean canSetText() {
        return alive && a.editable && acceptsSetText;
    }

    @Override
    public boolean setText(String text) {
        if (!canSetText()) return false;
        setTextCalls++;
        window.platform.changeText(this, text);
        return true;
    }

    @Override
    public boolean paste() {
        if (!alive || !a.editable || refusesPasteAction) return false;
        return pasteClip();
    }

    /** What the app does to paste: the primary clip inserted at the cursor (the text's end). */
    boolean pasteClip() {
        pasteCalls++;
        String clip = window.platform.appReadsClip();
        window.platform.changeText(this, (a.text == null ? "" : a.text) + (clip == null ? "" : clip));
        return true;
    }

    /** A field with an IME action: ACTION_IME_ENTER runs {@code action} while the field is focused. */
    public FakeNode onImeAction(Runnable action) { onImeAction = action; return this; }

    @Override
    public boolean offersImeEnter() {
        return alive && a.editable && a.focused; // TextView offers it on a focused editable field
    }

    @Override
    public boolean imeEnter() {
        if (!offersImeEnter()) return false;
        imeEnterCalls++;
        if (onImeAction != null) onImeAction.run();
        return true;
    }

    @Override
    public boolean focus() {
        if (!alive || !a.focusable) return false;
        window.platform.focus(this);
        return true;
    }

    static NodeAttrs copy(NodeAttrs s) {
        NodeAttrs c = new NodeAttrs();
        c.className = s.className; c.text = s.text; c.desc = s.desc; c.res = s.res; c.hint = s.hint; c.pkg = s.pkg;
        c.bounds = s.bounds.clone();
        c.clickable = s.clickable; c.longClickable = s.longClickable; c.focusable = s.focusable; c.focused = s.focused;
        c.editable = s.editable; c.checkable = s.checkable; c.checked = s.checked; c.enabled = s.enabled;
        c.selected = s.selected; c.scrollable = s.scrollable; c.visible = s.visible; c.password = s.password;
        c.itemIndex = s.itemIndex; c.fromProvider = s.fromProvider;
        c.role = s.role; c.state = s.state; c.range = s.range; c.error = s.error; c.actions.addAll(s.actions);
        c.important = s.important; c.labeledBy = s.labeledBy; c.traversalBefore = s.traversalBefore;
        c.traversalAfter = s.traversalAfter;
        if (s.scroll != null) {
            NodeAttrs.ScrollInfo x = new NodeAttrs.ScrollInfo();
            x.horizontal = s.scroll.horizontal; x.vertical = s.scroll.vertical; x.canBack = s.scroll.canBack;
            x.canForward = s.scroll.canForward; x.items = s.scroll.items; x.first = s.scroll.first; x.last = s.scroll.last;
            c.scroll = x;
        }
        return c;
    }
}
