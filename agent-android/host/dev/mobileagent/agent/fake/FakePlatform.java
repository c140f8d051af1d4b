package dev.mobileagent.agent.fake;

import dev.mobileagent.agent.platform.Clock;
import dev.mobileagent.agent.platform.DisplayInfo;
import dev.mobileagent.agent.platform.KeyStroke;
import dev.mobileagent.agent.platform.PNode;
import dev.mobileagent.agent.platform.Platform;
import dev.mobileagent.agent.platform.PlatformEvent;
import dev.mobileagent.agent.platform.PlatformException;
import dev.mobileagent.agent.platform.RawWindow;
import dev.mobileagent.agent.platform.Screenshot;
import dev.mobileagent.agent.platform.Screenshots;
import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import javax.imageio.ImageIO;

/**
 * The platform of the host tests: a fixed set of windows and nodes that react to touches and keys
 * the way the scenarios need (taps click, a tap on a field focuses it and brings the keyboard, a
 * drag scrolls a list with a velocity tracker that takes a pointer still for 40 ms as stopped),
 * events from the windows whose toolkit sends them, a clipboard, and rendered screenshots.
 */
public final class FakePlatform implements Platform {
    public static final String KEYBOARD_PACKAGE = "com.google.android.inputmethod.latin";
    /** The uid of the fixture apps' windows. */
    public static final int APP_UID = 10_123;
    /**
     * How long a WAIT_FOR_FINISH injection waits for the app: InputManagerService's
     * INJECTION_TIMEOUT_MILLIS (services/core/java/com/android/server/input/InputManagerService.java).
     */
    public static final long INJECTION_TIMEOUT_MS = 30_000;
    static final long STOPPED_MS = 40;
    static final long FLING_MS = 250;

    private final List<FakeWindow> windows = new ArrayList<>();
    private volatile Platform.EventSink sink;
    private DisplayInfo display = new DisplayInfo(1080, 2400, 420, 0);
    private String clip;
    /** The clip holds content URIs (an image copied in a gallery): the shell may not set it. */
    private boolean clipHasUris;
    private boolean clipReadable = true;
    private FakeWindow clipboardOverlay;
    /** How many clipboard overlays system UI showed (a clip set without the suppress extra). */
    public volatile int clipboardOverlays;
    private FakeNode focusedNode;
    private FakeWindow keyboard;
    private boolean keyboardEnabled = true;
    public volatile boolean refuseInjection;
    /** How injected events go out, and so what they cost: the agent's call unless a test says otherwise. */
    public volatile FakeInjection.Call injection = FakeInjection.agentsCall();
    /** A window appearing or going away animates this long (a window transition). */
    public static final long WINDOW_ANIMATION_MS = 300;
    private Clock clock = Clock.SYSTEM;
    private long animatingUntilMs;
    public volatile boolean failScreenshots;
    /** Thrown by the next screenshot and window listing when set (an OutOfMemoryError while encoding, a LinkageError). */
    public volatile Throwable screenshotThrows;
    public volatile Throwable windowsThrow;
    public volatile boolean released;
    public final List<long[]> touches = Collections.synchronizedList(new ArrayList<long[]>());
    /**
     * Every MotionEvent of several pointers handed to the input dispatcher, in order: {action,
     * downTime, eventTime, then id, x, y of each pointer}.
     */
    public final List<long[]> motions = Collections.synchronizedList(new ArrayList<long[]>());
    /** Every key event handed to the input dispatcher, in order: {action, code, meta}. */
    public final List<int[]> keys = Collections.synchronizedList(new ArrayList<int[]>());
    /**
     * The uid the injecting call targets (IInputManager.injectInputEventToTarget): the agent's by
     * default, Process.INVALID_UID (-1) for every window.
     */
    public volatile int injectionTargetUid = FakeInjection.agentsTargetUid();
    /** Events the dispatcher dropped because a targeted injection met a window of another owner. */
    public final List<long[]> droppedEvents = Collections.synchronizedList(new ArrayList<long[]>());
    private boolean gestureDropped;
    /** The app's input queue ("The app's UI thread" below). */
    private final AppThread app = new AppThread(this);
    /** The window each DOWN went to (-1: none). */
    public final List<Integer> downWindows = Collections.synchronizedList(new ArrayList<Integer>());
    public volatile int clipboardWrites;

    // the gesture in progress
    private int downX, downY, lastX, lastY;
    private long downT;
    private FakeNode dragged;
    private final List<long[]> samples = new ArrayList<>();

    public synchronized FakePlatform add(FakeWindow w) {
        w.platform = this;
        windows.add(w);
        Collections.sort(windows, (a, b) -> Integer.compare(b.layer, a.layer));
        refocus();
        return this;
    }

    /** The top-most focusable window has the input focus (a dialog takes it from its activity). */
    private void refocus() {
        boolean given = false;
        for (FakeWindow w : windows) {
            boolean gets = w.focusable && !given;
            w.focused = w.active = gets;
            given |= gets;
        }
    }

    /** The clock injection costs are paid on (the agent's, in tests with a fake clock). */
    public synchronized FakePlatform withClock(Clock c) {
        clock = c;
        return this;
    }

    /** Window animations run for {@code ms} from now (an app transition, a dialog appearing). */
    public synchronized void animateWindows(long ms) {
        animatingUntilMs = Math.max(animatingUntilMs, clock.nowMs() + ms);
    }

    public FakePlatform addAndAnnounce(FakeWindow w) {
        add(w);
        animateWindows(WINDOW_ANIMATION_MS);
        emit(new PlatformEvent(PlatformEvent.WINDOWS, -1, null, null));
        return this;
    }

    public void remove(FakeWindow w) {
        synchronized (this) {
            windows.remove(w);
            if (w.root != null) FakeWindow.kill(w.root);
            refocus();
            animateWindows(WINDOW_ANIMATION_MS);
        }
        emit(new PlatformEvent(PlatformEvent.WINDOWS, -1, null, null));
    }

    /** The app's process is killed: its windows go, their nodes are gone. */
    public void forceStop(String pkg) {
        List<FakeWindow> gone = new ArrayList<>();
        synchronized (this) {
            for (FakeWindow w : windows) {
                if (w.root != null && pkg.equals(w.root.a.pkg)) gone.add(w);
            }
            if (focusedNode != null && gone.contains(focusedNode.window)) focusedNode = null;
        }
        for (FakeWindow w : gone) remove(w);
    }

    public synchronized FakePlatform display(int width, int height, int density, int rotation) {
        display = new DisplayInfo(width, height, density, rotation);
        return this;
    }

    // --- the rotation lock, and what UiAutomationConnection does with it ---------------------------

    /** Auto-rotate off, the emulator's default: the display keeps the rotation it is frozen at. */
    private boolean rotationFrozen = true;
    /** UiAutomationConnection.storeRotationStateLocked at connect: the frozen rotation, or -1. */
    private int connectRotation = 0;

    /** The user (or a test) locks the display in this rotation (freezeRotation). */
    public synchronized void freezeRotation(int rotation) {
        rotationFrozen = true;
        rotate(rotation);
    }

    /** Auto-rotate on (thawRotation): the display follows the sensor, here the natural orientation. */
    public synchronized void thawRotation() {
        rotationFrozen = false;
        rotate(0);
    }

    public synchronized boolean rotationFrozen() {
        return rotationFrozen;
    }

    private void rotate(int rotation) {
        boolean turned = (rotation % 2) != (display.rotation % 2);
        display = new DisplayInfo(turned ? display.height : display.width, turned ? display.width : display.height,
            display.density, rotation);
    }

    /**
     * What UiAutomation.disconnect() does besides releasing: UiAutomationConnection
     * .restoreRotationStateLocked, freezeRotation(the rotation frozen at connect), else thawRotation.
     * The agent never calls it (Platform.release); tests call it to show what it would do.
     */
    public synchronized void disconnect() {
        released = true;
        if (connectRotation >= 0) freezeRotation(connectRotation);
        else thawRotation();
    }

    public synchronized void setKeyboardEnabled(boolean on) {
        keyboardEnabled = on;
    }

    public synchronized String clipboardText() {
        return clip;
    }

    public synchronized boolean clipboardHasUris() {
        return clipHasUris;
    }

    public synchronized void setClipboardForTest(String text) {
        setClipboardForTest(text, false);
    }

    /** The user's clip, as an app put it there; {@code withUris}: it holds content URIs. */
    public synchronized void setClipboardForTest(String text, boolean withUris) {
        clip = text;
        clipHasUris = withUris;
        clipReadable = true;
        clipSetBy(APP_UID);
    }

    /**
     * A clip the shell may not read: ClipboardService answers getPrimaryClip null while
     * hasPrimaryClip says a clip is there (wrappers/Clipboards.save).
     */
    public synchronized void setUnreadableClipboardForTest(String text) {
        setClipboardForTest(text, false);
        clipReadable = false;
    }

    /** The clip as saveClipboard hands it out. */
    static final class SavedClip {
        final String text;
        final boolean uris;

        SavedClip(String text, boolean uris) {
            this.text = text;
            this.uris = uris;
        }
    }

    public synchronized FakeWindow window(int id) {
        for (FakeWindow w : windows) if (w.id == id) return w;
        return null;
    }

    public synchronized FakeNode focusedNode() {
        return focusedNode;
    }

    /**
     * An app shows a text toast: UiAutomation delivers its TYPE_NOTIFICATION_STATE_CHANGED event, class
     * {@code android.widget.Toast} (SystemUI's ToastPresenter), stamped with the time it was shown.
     */
    public void showToast(String packageName, String text) {
        emit(PlatformEvent.toast(text, packageName, "android.widget.Toast", clock.nowMs()));
    }

    void emit(PlatformEvent e) {
        Platform.EventSink s = sink;
        if (s != null) s.onEvent(e);
    }

    void contentChanged(FakeWindow w, FakeNode node, String kind) {
        if (!w.sendsEvents) return;
        emit(new PlatformEvent(PlatformEvent.CONTENT, w.id, Collections.<Object>singletonList(node), new HashSet<>(Arrays.asList(kind))));
    }

    /** A change of the node's text, as the app would apply it. */
    public void changeText(FakeNode node, String text) {
        synchronized (FakeNode.class) {
            node.a.text = text;
        }
        if (node.window != null) contentChanged(node.window, node, "text");
    }

    void focus(FakeNode node) {
        FakeWindow kb = null;
        synchronized (this) {
            synchronized (FakeNode.class) {
                if (focusedNode != null) focusedNode.a.focused = false;
                focusedNode = node;
                node.a.focused = true;
            }
            if (node.a.editable && keyboard == null && keyboardEnabled) {
                keyboard = Fixtures.keyboard(this);
                kb = keyboard;
            }
        }
        if (kb != null) addAndAnnounce(kb);
        if (node.window != null) contentChanged(node.window, node, "state");
        if (node.focusTakenBy != null && node.focusTakenBy != node) focus(node.focusTakenBy);
    }

    void hideKeyboard() {
        FakeWindow kb;
        synchronized (this) {
            kb = keyboard;
            keyboard = null;
        }
        if (kb != null) remove(kb);
    }

    // --- Platform -------------------------------------------------------------------------------

    /** The windows UiAutomation.getWindows() reports (ReportedWindows: a dialog hides the app under it). */
    @Override
    public List<RawWindow> windows() throws PlatformException {
        app.handleQueued();
        synchronized (this) {
            if (released) throw new PlatformException("automation_unavailable", "UI automation was released");
            rethrow(windowsThrow);
            return new ArrayList<RawWindow>(ReportedWindows.of(windows, display.width, display.height));
        }
    }

    /** Every window on the screen, reported or not. */
    public synchronized List<FakeWindow> allWindows() {
        return new ArrayList<>(windows);
    }

    @Override
    public synchronized DisplayInfo display() {
        return display;
    }

    /** The task of the focused window: its task's bounds (the display for a full-screen task). */
    @Override
    public synchronized int[] focusedTaskBounds() {
        focusedTaskQueries++;
        for (FakeWindow w : windows) if (w.focused) return w.taskBounds(display.width, display.height);
        return null;
    }

    /** How often the agent asked for the focused task's bounds. */
    public volatile int focusedTaskQueries;

    @Override
    public void setEventSink(Platform.EventSink sink) {
        this.sink = sink;
    }

    @Override
    public boolean injectTouch(int action, int x, int y, long downTimeMs, long eventTimeMs) throws PlatformException {
        checkInjection();
        payInjection(action);
        touches.add(new long[] {action, x, y, downTimeMs, eventTimeMs});
        Runnable click = null;
        synchronized (this) {
            if (action == 0) {
                FakeWindow target = windowAt(x, y);
                gestureDropped = !targetedAt(target);
            }
            if (gestureDropped) {
                // an ASYNC injection is SUCCEEDED once queued: the dispatcher drops it later
                droppedEvents.add(new long[] {action, x, y});
                return true;
            }
            if (action == 0) {
                FakeWindow target = windowAt(x, y);
                downWindows.add(target == null ? -1 : target.id);
                downX = lastX = x;
                downY = lastY = y;
                downT = eventTimeMs;
                samples.clear();
                samples.add(new long[] {eventTimeMs, x, y});
                dragged = scrollableAt(x, y);
            } else if (action == 2) {
                if (x == lastX && y == lastY) return true; // a repeated position changes nothing
                long lastT = samples.isEmpty() ? downT : samples.get(samples.size() - 1)[0];
                if (eventTimeMs - lastT > STOPPED_MS) samples.clear();
                samples.add(new long[] {eventTimeMs, x, y});
                if (dragged != null) dragged.scrolled += dragged.a.scroll.vertical ? lastY - y : lastX - x;
                lastX = x;
                lastY = y;
            } else if (action == 1) {
                if (dragged != null) dragged.scrolled += fling(eventTimeMs);
                boolean still = Math.abs(x - downX) < 16 && Math.abs(y - downY) < 16;
                if (still) click = clickAt(x, y, eventTimeMs - downT >= 500);
                dragged = null;
            }
        }
        if (click != null) click.run();
        return true;
    }

    /**
     * A MotionEvent of several pointers: recorded as the dispatcher got it (MultiTouchTest checks
     * the stream); the fake's windows react to single-pointer touches only.
     */
    @Override
    public boolean injectMotion(int action, int[] ids, int[] xs, int[] ys, long downTimeMs, long eventTimeMs)
            throws PlatformException {
        checkInjection();
        payInjection(action & 0xff);
        long[] event = new long[3 + 3 * ids.length];
        event[0] = action;
        event[1] = downTimeMs;
        event[2] = eventTimeMs;
        for (int i = 0; i < ids.length; i++) {
            event[3 + 3 * i] = ids[i];
            event[4 + 3 * i] = xs[i];
            event[5 + 3 * i] = ys[i];
        }
        motions.add(event);
        return true;
    }

    private int fling(long upT) {
        List<long[]> recent = new ArrayList<>();
        for (long[] s : samples) if (upT - s[0] <= 100) recent.add(s);
        if (recent.size() < 2 || upT - recent.get(recent.size() - 1)[0] > STOPPED_MS) return 0;
        long[] a = recent.get(0);
        long[] b = recent.get(recent.size() - 1);
        if (b[0] == a[0]) return 0;
        boolean vertical = dragged.a.scroll.vertical;
        double v = (double) (vertical ? a[2] - b[2] : a[1] - b[1]) / (b[0] - a[0]);
        return (int) Math.round(v * FLING_MS);
    }

    /** The window a touch goes to: a touch-modal window also takes the touches outside it. */
    private FakeWindow windowAt(int x, int y) {
        for (FakeWindow w : windows) {
            int[] b = w.bounds;
            if (!w.touchable) continue; // FLAG_NOT_TOUCHABLE: the dispatcher looks through it
            if (x >= b[0] && x < b[2] && y >= b[1] && y < b[3] && w.root != null) return w;
            int[] t = w.touchRegion(display.width, display.height);
            if (w.touchModal && w.root != null && x >= t[0] && x < t[2] && y >= t[1] && y < t[3]) return w;
        }
        return null;
    }

    private static boolean contains(FakeNode n, int x, int y) {
        int[] b = n.a.bounds;
        return x >= b[0] && x < b[2] && y >= b[1] && y < b[3];
    }

    private FakeNode deepest(FakeNode n, int x, int y, boolean scrollable) {
        FakeNode best = null;
        if (contains(n, x, y) && (scrollable ? n.a.scrollable : (n.a.clickable || n.a.editable))) best = n;
        for (FakeNode c : n.kids) {
            FakeNode d = deepest(c, x, y, scrollable);
            if (d != null) best = d;
        }
        return best;
    }

    private FakeNode scrollableAt(int x, int y) {
        FakeWindow w = windowAt(x, y);
        return w == null ? null : deepest(w.root, x, y, true);
    }

    private Runnable clickAt(int x, int y, boolean longPress) {
        FakeWindow w = windowAt(x, y);
        if (w == null) return null;
        final FakeNode n = deepest(w.root, x, y, false);
        if (n == null) return null;
        if (n.a.editable) return () -> focus(n);
        if (longPress) n.a.longClickable = true;
        return n.onClick;
    }

    /**
     * Whether the dispatcher delivers an injected event to {@code window}: every window for
     * Process.INVALID_UID, else only the target uid's (InputDispatcher's verifyTargetedInjection).
     */
    private boolean targetedAt(FakeWindow window) {
        int uid = injectionTargetUid;
        return uid == FakeInjection.INVALID_UID || (window != null && window.ownerUid == uid);
    }

    /**
     * Hands the key to the input dispatcher, which queues it for the focused app and returns
     * (INJECT_INPUT_EVENT_MODE_ASYNC): the app handles it on its UI thread after this call returned,
     * by the time anything looks at the screen (AppThread).
     */
    @Override
    public boolean injectKey(int action, int code, int meta, long downTimeMs, long eventTimeMs) throws PlatformException {
        checkInjection();
        payInjection(action);
        keys.add(new int[] {action, code, meta});
        if (!keyTargeted()) {
            droppedEvents.add(new long[] {action, code, meta});
            return true;
        }
        app.queue(new int[] {action, code, meta});
        return true;
    }

    /**
     * INJECT_INPUT_EVENT_MODE_WAIT_FOR_FINISH: HANDLED once the app has handled the key; when its UI
     * thread is busy, InputManagerService would wait INJECTION_TIMEOUT_MS and then answer timed out
     * (REFUSED), but the caller's bound {@code waitMs} ends the wait first (PENDING): the key stays
     * queued for the app, which handles it once free.
     */
    @Override
    public KeyWait injectKeyAndWait(int action, int code, int meta, long downTimeMs, long eventTimeMs, long waitMs)
            throws PlatformException {
        if (!keyTargeted()) {
            // InputManagerService.injectInputEventToTarget on TARGET_MISMATCH, which a waiting mode reports
            throw new IllegalArgumentException("Targeted input event injection was not directed at a window owned "
                + "by uid " + injectionTargetUid + ".");
        }
        injectKey(action, code, meta, downTimeMs, eventTimeMs);
        if (app.handleQueued()) return KeyWait.HANDLED;
        try {
            currentClock().sleepMs(Math.min(waitMs, INJECTION_TIMEOUT_MS));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        keyWaits.add(Math.min(waitMs, INJECTION_TIMEOUT_MS));
        return waitMs < INJECTION_TIMEOUT_MS ? KeyWait.PENDING : KeyWait.REFUSED;
    }

    /** How long each waiting injection that the app did not finish held its caller. */
    public final List<Long> keyWaits = Collections.synchronizedList(new ArrayList<Long>());

    private synchronized boolean keyTargeted() {
        FakeWindow focused = null;
        for (FakeWindow w : windows) if (w.focused) focused = w;
        return targetedAt(focused);
    }

    private synchronized Clock currentClock() {
        return clock;
    }

    /** The app's UI thread handles a key: what a View does with its KeyEvent. */
    void handleKey(int action, int code, int meta) {
        if (action != 0) return;
        FakeNode target;
        synchronized (this) {
            target = focusedNode;
        }
        if (code == 4) {
            hideKeyboard();
        } else if (code == 279 && target != null) {
            // TextView.doKeyDown: KEYCODE_PASTE pastes the primary clip on the key's DOWN
            if (!target.ignoresPasteKey && target.alive && target.a.editable) target.pasteClip();
        } else if (target != null && target.a.editable) {
            char c = FakeKeyMap.charFor(code, meta);
            if (c != 0) changeText(target, (target.a.text == null ? "" : target.a.text) + c);
            if (c != 0 && target.advancesTo != null) focus(target.advancesTo);
        }
    }

    /** The app's UI thread is busy (a long frame, a stall): queued keys wait until {@link #appIdle}. */
    public void appBusy() {
        app.setBusy(true);
    }

    /** The app's UI thread is free again and handles the keys queued meanwhile. */
    public void appIdle() {
        app.setBusy(false);
        app.handleQueued();
    }

    /** Whatever input the app has queued is handled now (the agent looking at the screen does this). */
    public void handleQueuedInput() {
        app.handleQueued();
    }

    /** HostMain: the app's UI thread runs by itself, handling queued keys as they come. */
    public void runAppThread() {
        app.start();
    }

    private static void rethrow(Throwable t) {
        if (t instanceof Error) throw (Error) t;
        if (t instanceof RuntimeException) throw (RuntimeException) t;
    }

    /** Blocks the caller as long as the injecting call would on Android 14+ (FakeInjection). */
    private void payInjection(int action) throws PlatformException {
        Clock c;
        long cost;
        synchronized (this) {
            c = clock;
            cost = FakeInjection.costMs(injection, action, c.nowMs(), animatingUntilMs);
        }
        if (cost <= 0) return;
        try {
            c.sleepMs(cost);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PlatformException("internal", "interrupted while injecting");
        }
    }

    private void checkInjection() throws PlatformException {
        if (refuseInjection) {
            throw PlatformException.injectionRefused("Injecting to another application requires INJECT_EVENTS permission");
        }
    }

    @Override
    public List<KeyStroke> keyStrokesFor(String text) {
        return FakeKeyMap.strokes(text);
    }

    @Override
    public PNode focusedInput() {
        app.handleQueued();
        synchronized (this) {
            return focusedNode;
        }
    }

    // --- the clipboard, as ClipboardService serves it ---------------------------------------------

    /** The shell's uid (Process.SHELL_UID). */
    public static final int SHELL_UID = 2000;
    /** The uid the agent runs as: the shell's, or 0 when it was started as root. */
    public volatile int agentUid = SHELL_UID;
    /** Settings.Secure.clipboard_show_access_notifications (on unless set to 0). */
    public volatile boolean showAccessNotifications = true;
    /** ClipboardService's primaryClipUid: who set the clip (-1: nobody). */
    private int clipOwnerUid = -1;
    /** ClipboardService's mNotifiedUids: who was shown the access toast for this clip. */
    private final HashSet<Integer> notifiedUids = new HashSet<>();
    private boolean deviceLocked;
    /** The label of the access toast ClipboardService shows for a read (R.string.pasted_from_clipboard). */
    static final String PASTED_FROM_CLIPBOARD = " pasted from your clipboard";

    /** The keyguard is up and the device locked (KeyguardManager.isDeviceLocked), or unlocked. */
    public synchronized void setDeviceLocked(boolean locked) {
        deviceLocked = locked;
    }

    @Override
    public synchronized String clipboardReadRefusal() {
        return dev.mobileagent.agent.platform.ClipboardRefusal.of(agentUid, deviceLocked);
    }

    /** A clip changes hands (setPrimaryClipInternalNoClassifyLocked): its owner, nobody notified yet. */
    private void clipSetBy(int uid) {
        clipOwnerUid = clip == null ? -1 : uid;
        notifiedUids.clear();
    }

    /**
     * ClipboardService.getPrimaryClip for {@code uid} (labelled {@code label}): null while the device
     * is locked; for root naming com.android.shell, addActiveOwnerLocked throws and the clipboard is
     * cleared; else the clip, with showAccessNotificationLocked's toast (package android) for a
     * reader that is not the clip's owner, once per clip, unless the setting is off. Returns
     * {text} (null text: empty) or null for nothing handed out.
     */
    private String[] read(int uid, String label) {
        String toast = null;
        String[] out;
        synchronized (this) {
            if (deviceLocked) return null;
            if (uid == 0) {
                clip = null;
                clipHasUris = false;
                clipSetBy(0);
                return null;
            }
            if (clip != null && !clipReadable) return null;
            if (clip != null && showAccessNotifications && uid != clipOwnerUid && notifiedUids.add(uid)) {
                toast = label + PASTED_FROM_CLIPBOARD;
            }
            out = new String[] {clip};
        }
        if (toast != null) emit(PlatformEvent.toast(toast, "android", "android.widget.Toast", clock.nowMs()));
        return out;
    }

    /** hasPrimaryClip: false while the device is locked. */
    private synchronized boolean has() {
        return !deviceLocked && clip != null;
    }

    /** The app reads the clip to paste it (its own uid, its label). */
    String appReadsClip() {
        String[] r = read(APP_UID, "Compose fixture");
        return r == null ? null : r[0];
    }

    @Override
    public Object saveClipboard() {
        String[] r = read(agentUid, "Shell");
        if (r == null || r[0] == null) return has() ? Platform.UNREADABLE_CLIP : null;
        synchronized (this) {
            return new SavedClip(r[0], clipHasUris);
        }
    }

    @Override
    public String readClipboardText() throws PlatformException {
        String[] r = read(agentUid, "Shell");
        if ((r == null || r[0] == null) && has()) {
            throw new PlatformException("internal", "the clipboard holds a clip the shell may not read");
        }
        return r == null ? null : r[0];
    }

    /**
     * The shell's clip sets are dropped without a word: ClipboardService.checkAndSetPrimaryClip
     * returns when clipboardAccessAllowed(OP_WRITE_CLIPBOARD) refuses (the app op set to ignore).
     */
    public volatile boolean clipSetsIgnored;
    /** Run as the agent sets a clip (a test's look at what else can happen meanwhile). */
    public volatile Runnable onClipSet;

    @Override
    public void setClipboardText(String text, boolean unseen) {
        Runnable hook = onClipSet;
        if (hook != null) hook.run();
        if (clipSetsIgnored) return;
        synchronized (this) {
            clipboardWrites++;
            clip = text;
            clipHasUris = false;
            clipReadable = true;
            clipSetBy(agentUid);
        }
        if (!unseen) showClipboardOverlay();
    }

    /**
     * ClipboardService refuses a clip with content URIs from the shell (its URI permission check
     * throws SecurityException: the shell holds no grant on the app's URIs).
     */
    @Override
    public void restoreClipboard(Object saved, boolean unseen) throws PlatformException {
        if (saved == Platform.UNREADABLE_CLIP) return;
        SavedClip s = (SavedClip) saved;
        synchronized (this) {
            if (s != null && s.uris) {
                throw new PlatformException("internal", "the clipboard refused the clip: java.lang.SecurityException: "
                    + "Uri content://media/external/images/media/1 not allowed for com.android.shell");
            }
            clip = s == null ? null : s.text;
            clipHasUris = false;
            clipSetBy(agentUid);
        }
        if (s != null && !unseen) showClipboardOverlay();
    }

    /**
     * SystemUI's clipboard overlay (Android 13+, ClipboardListener.onPrimaryClipChanged for a clip
     * without EXTRA_SUPPRESS_OVERLAY): a system window in the bottom-left corner that takes touches.
     */
    private void showClipboardOverlay() {
        FakeWindow overlay;
        synchronized (this) {
            clipboardOverlays++;
            if (clipboardOverlay != null) return;
            clipboardOverlay = Fixtures.clipboardOverlay();
            overlay = clipboardOverlay;
        }
        addAndAnnounce(overlay);
    }

    /**
     * The screen rendered, through the agent's Screenshots: UiAutomation's capture, which fails when
     * reading its HARDWARE bitmap back fails ({@link #hardwareReadBackFails}), else screencap's.
     */
    @Override
    public Screenshot screenshot(final String format, int quality) throws PlatformException {
        if (failScreenshots) throw new PlatformException("screenshot_failed", "the capture failed");
        rethrow(screenshotThrows);
        return Screenshots.take(() -> {
            if (hardwareReadBackFails) {
                throw new IllegalStateException("unable to copy the HARDWARE bitmap: no GPU context in this process");
            }
            BufferedImage img = renderImage();
            // the read-back's copy: a failed one is a bitmap of zeros
            if (hardwareReadBackBlack) img = new BufferedImage(img.getWidth(), img.getHeight(), BufferedImage.TYPE_INT_ARGB);
            Screenshots.requireNotAllZero(samples(img));
            return encode(img, format, Screenshots.UI_AUTOMATION);
        }, () -> render(format, Screenshots.SCREENCAP));
    }

    /** Reading UiAutomation's HARDWARE bitmap back fails (the agent then takes screencap's). */
    public volatile boolean hardwareReadBackFails;
    /**
     * Reading it back fails silently: HWUI's Bitmap::getSkBitmap ignores the failed GPU copy, and
     * the copy is a bitmap of zeros (libs/hwui/hwui/Bitmap.cpp).
     */
    public volatile boolean hardwareReadBackBlack;

    /** The image's ARGB pixels at the agent's sample points (AndroidPlatform.notAllZero's). */
    private static int[] samples(BufferedImage img) {
        int[][] points = Screenshots.samplePoints(img.getWidth(), img.getHeight());
        int[] out = new int[points.length];
        for (int i = 0; i < points.length; i++) out[i] = img.getRGB(points[i][0], points[i][1]);
        return out;
    }

    private Screenshot render(String format, String capture) throws PlatformException {
        return encode(renderImage(), format, capture);
    }

    private BufferedImage renderImage() {
        DisplayInfo d;
        List<FakeWindow> ws;
        synchronized (this) {
            d = display;
            ws = new ArrayList<>(windows);
        }
        BufferedImage img = new BufferedImage(d.width, d.height, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = img.createGraphics();
        g.setColor(Color.WHITE);
        g.fillRect(0, 0, d.width, d.height);
        for (int i = ws.size() - 1; i >= 0; i--) {
            int[] b = ws.get(i).bounds;
            g.setColor(new Color(0x30 * (i + 1) & 0xff, 0x80, 0xc0));
            g.fillRect(b[0], b[1], b[2] - b[0], b[3] - b[1]);
        }
        g.dispose();
        return img;
    }

    private Screenshot encode(BufferedImage img, String format, String capture) throws PlatformException {
        DisplayInfo d;
        synchronized (this) {
            d = display;
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            ImageIO.write(img, "jpeg".equals(format) ? "jpg" : "png", out);
        } catch (IOException e) {
            throw new PlatformException("screenshot_failed", "encoding failed: " + e.getMessage());
        }
        return new Screenshot(format, d.width, d.height, d.rotation, out.toByteArray(), capture);
    }

    /** How often the agent asked to drop the platform's cached nodes. */
    public volatile int cacheDrops;

    @Override
    public void dropCachedNodes() {
        cacheDrops++;
    }

    @Override
    public void release() {
        released = true;
    }
}
