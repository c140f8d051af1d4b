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
    /** Takes the input focus when it is the top-most such window (an activity, a dialog). */
    boolean focusable;
    int[] bounds = {0, 0, 1080, 2400};
    volatile FakeNode root;
    boolean sendsEvents = true;
    /** Touch-modal (an activity's dialog or a dialog-themed activity): its touch region is its task's. */
    boolean touchModal;
    /** The bounds of the window's task; null: the whole display (a fullscreen task). */
    int[] task;
    /** The uid of the process that owns the window (an app's, or system UI's). */
    int ownerUid = FakePlatform.APP_UID;
    /** WindowManager.LayoutParams type, where it decides whether the window is reported (ReportedWindows). */
    int layoutType = ReportedWindows.TYPE_BASE_APPLICATION;
    /** FLAG_NOT_TOUCHABLE not set. */
    boolean touchable = true;
    /** A trusted overlay (system windows: InputConfig.TRUSTED_OVERLAY). */
    boolean trustedOverlay;
    FakePlatform platform;
    volatile ReadHook hook;

    public FakeWindow(int id, String type, String title, int layer) {
        this.id = id;
        this.type = type;
        this.title = title;
        this.layer = layer;
    }

    public FakeWindow bounds(int l, int t, int r, int b) { bounds = new int[] {l, t, r, b}; return this; }
    public FakeWindow withFocus() { focusable = true; focused = true; active = true; return this; }
    public FakeWindow eventLess() { sendsEvents = false; return this; }
    public FakeWindow touchModal() { touchModal = true; return this; }
    public FakeWindow task(int l, int t, int r, int b) { task = new int[] {l, t, r, b}; return this; }
    public FakeWindow ownedBy(int uid) { ownerUid = uid; return this; }
    public FakeWindow layoutType(int type) { layoutType = type; return this; }
    public FakeWindow notTouchable() { touchable = false; return this; }
    public FakeWindow trustedOverlay() { trustedOverlay = true; return this; }
    /** A freeform (desktop) task's window: its task is its own frame, which is also its touch region. */
    public FakeWindow freeform() { task = bounds.clone(); return this; }

    /** The bounds of the window's task on a display of this size. */
    int[] taskBounds(int displayWidth, int displayHeight) {
        return task != null ? task.clone() : new int[] {0, 0, displayWidth, displayHeight};
    }

    /** Where the window takes touches: its task for a touch-modal window, else its frame. */
    int[] touchRegion(int displayWidth, int displayHeight) {
        if (!touchModal) return bounds;
        return task != null ? task : new int[] {0, 0, displayWidth, displayHeight};
    }
    public FakeWindow root(FakeNode n) { root = n; if (n != null) attach(n); return this; }
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
