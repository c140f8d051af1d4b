package dev.mobileagent.agent.fake;

import dev.mobileagent.agent.platform.PNode;
import dev.mobileagent.agent.platform.RawWindow;

/** A window of the fake UI. Compose-like windows send no change events. */
public final class FakeWindow implements RawWindow {
    /** Called before each child read of this window's nodes: tests tear down or block reads here. */
    public interface ReadHook {
        void beforeChildRead(FakeWindow window, FakeNode parent, int index);
    }

    final int id;
    final String type;
    final String title;
    final int layer;
    boolean focused;
    boolean active;
    int[] bounds = {0, 0, 1080, 2400};
    volatile FakeNode root;
    boolean sendsEvents = true;
    FakePlatform platform;
    volatile ReadHook hook;

    public FakeWindow(int id, String type, String title, int layer) {
        this.id = id;
        this.type = type;
        this.title = title;
        this.layer = layer;
    }

    public FakeWindow bounds(int l, int t, int r, int b) { bounds = new int[] {l, t, r, b}; return this; }
    public FakeWindow withFocus() { focused = true; active = true; return this; }
    public FakeWindow eventLess() { sendsEvents = false; return this; }
    public FakeWindow root(FakeNode n) { root = n; attach(n); return this; }
    public void setHook(ReadHook h) { hook = h; }

    public FakeNode rootNode() {
        return root;
    }

    void attach(FakeNode n) {
        n.window = this;
        for (FakeNode c : n.kids) attach(c);
    }

    void beforeChildRead(FakeNode parent, int index) {
        ReadHook h = hook;
        if (h != null) h.beforeChildRead(this, parent, index);
    }

    /** Replaces the children of {@code parent} (a screen change): the old subtree is torn down. */
    public void replaceChildren(FakeNode parent, FakeNode... fresh) {
        synchronized (FakeNode.class) {
            for (FakeNode old : parent.kids) kill(old);
            parent.kids.clear();
            for (FakeNode f : fresh) {
                parent.kids.add(f);
                attach(f);
            }
        }
        if (platform != null) platform.contentChanged(this, parent, "structure");
    }

    static void kill(FakeNode n) {
        n.alive = false;
        for (FakeNode c : n.kids) kill(c);
    }

    @Override public int id() { return id; }
    @Override public String type() { return type; }
    @Override public String title() { return title; }
    @Override public int layer() { return layer; }
    @Override public boolean focused() { return focused; }
    @Override public boolean active() { return active; }
    @Override public int[] bounds() { return bounds.clone(); }
    @Override public PNode root() { return root; }
}
