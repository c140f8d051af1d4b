package dev.mobileagent.agent.android;

import android.app.UiAutomation;
import android.content.ClipData;
import android.content.ClipDescription;
import android.os.PersistableBundle;
import android.graphics.Bitmap;
import android.graphics.BitmapFactory;
import android.graphics.Matrix;
import android.os.Build;
import android.os.HandlerThread;
import android.view.InputDevice;
import android.view.KeyCharacterMap;
import android.view.KeyEvent;
import android.view.MotionEvent;
import android.view.accessibility.AccessibilityEvent;
import android.view.accessibility.AccessibilityNodeInfo;
import android.view.accessibility.AccessibilityWindowInfo;
import dev.mobileagent.agent.platform.ClipboardRefusal;
import dev.mobileagent.agent.platform.DisplayInfo;
import dev.mobileagent.agent.platform.KeyStroke;
import dev.mobileagent.agent.platform.PNode;
import dev.mobileagent.agent.platform.Platform;
import dev.mobileagent.agent.platform.PlatformEvent;
import dev.mobileagent.agent.platform.PlatformException;
import dev.mobileagent.agent.platform.RawWindow;
import dev.mobileagent.agent.platform.Screenshot;
import dev.mobileagent.agent.platform.Screenshots;
import dev.mobileagent.agent.wrappers.AccessibilityCaches;
import dev.mobileagent.agent.wrappers.Clipboards;
import dev.mobileagent.agent.wrappers.Displays;
import dev.mobileagent.agent.wrappers.InputInjection;
import dev.mobileagent.agent.wrappers.Keyguard;
import dev.mobileagent.agent.wrappers.MissingApi;
import dev.mobileagent.agent.wrappers.NodeIds;
import dev.mobileagent.agent.wrappers.Tasks;
import dev.mobileagent.agent.wrappers.UiAutomations;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The platform over UiAutomation, obtained as the shell user and connected once. Its callbacks run
 * on a looper thread of its own; every call here comes from the server's worker threads.
 */
public final class AndroidPlatform implements Platform {
    private final UiAutomation ua;
    private final HandlerThread looperThread;
    private final InputInjection injection;
    /** uptimeMillis minus the agent clock: both monotonic and both stopped in deep sleep, so constant. */
    private final long uptimeOffsetMs = android.os.SystemClock.uptimeMillis() - dev.mobileagent.agent.platform.Clock.SYSTEM.nowMs();
    private volatile Platform.EventSink sink;
    private volatile boolean released;
    private Clipboards clipboards;
    private volatile boolean cacheWarned;

    private AndroidPlatform(UiAutomation ua, HandlerThread looperThread, InputInjection injection) {
        this.ua = ua;
        this.looperThread = looperThread;
        this.injection = injection;
    }

    /** UI automation is held by someone else: the platform's whole message. */
    public static final class Conflict extends Exception {
        public Conflict(String message) {
            super(message);
        }
    }

    /**
     * Connects UI automation (FLAG_DONT_SUPPRESS_ACCESSIBILITY_SERVICES keeps other accessibility
     * services running). The caller has prepared the main looper; callbacks go to a HandlerThread,
     * so connect, which waits for them, never waits on its own thread.
     */
    public static AndroidPlatform connect(long timeoutMs) throws Conflict, MissingApi, PlatformException {
        HandlerThread t = new HandlerThread("mobile-agent-automation");
        t.setDaemon(true);
        t.start();
        UiAutomation ua = UiAutomations.create(t.getLooper());
        try {
            UiAutomations.connect(ua, UiAutomation.FLAG_DONT_SUPPRESS_ACCESSIBILITY_SERVICES, timeoutMs);
        } catch (RuntimeException e) {
            t.quitSafely();
            String message = messageOf(e);
            if (message.contains("already registered")) throw new Conflict(message);
            throw new PlatformException("automation_unavailable", "connecting UI automation failed: " + message);
        }
        AndroidPlatform p = new AndroidPlatform(ua, t, InputInjection.choose(InputInjection.inputService(), ua));
        try {
            p.configure();
        } catch (PlatformException e) {
            p.release();
            throw e;
        }
        return p;
    }

    /**
     * Waits until the platform reports an interactive window (right after connecting, the window
     * list can be empty until the service info applies). Returns whether one appeared in time.
     */
    public boolean awaitWindows(long timeoutMs) {
        long end = System.nanoTime() + timeoutMs * 1_000_000L;
        while (System.nanoTime() < end) {
            List<AccessibilityWindowInfo> ws = ua.getWindows();
            if (ws != null && !ws.isEmpty()) return true;
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return false;
    }

    static String messageOf(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getMessage() == null) t = t.getCause();
        return t.getMessage() == null ? t.toString() : t.getMessage();
    }

    private void configure() throws PlatformException {
        ua.setServiceInfo(ServiceFlags.withAgentFlags(ua.getServiceInfo()));
        ua.setOnAccessibilityEventListener(new UiAutomation.OnAccessibilityEventListener() {
            @Override
            public void onAccessibilityEvent(AccessibilityEvent event) {
                Platform.EventSink s = sink;
                try {
                    if (s != null) s.onEvent(toastOrTranslate(event));
                } catch (RuntimeException | Error e) {
                    // the UiAutomation looper thread: an uncaught throwable would end the process
                    java.util.logging.Logger.getLogger("dev.mobileagent.agent").warning("event failed: " + e);
                }
            }
        });
    }

    /** A toast's event as a toast, its time moved from uptime to the agent's clock; any other translated. */
    private PlatformEvent toastOrTranslate(AccessibilityEvent e) {
        if (e.getEventType() == AccessibilityEvent.TYPE_NOTIFICATION_STATE_CHANGED) {
            PlatformEvent toast = EventReading.toast(e.getEventType(), e.getClassName(), e.getText(),
                e.getPackageName(), e.getEventTime() - uptimeOffsetMs);
            if (toast != null) return toast;
        }
        return translate(e);
    }

    /** The event as the agent acts on it, read from the event alone (EventReading: no call into the app). */
    static PlatformEvent translate(AccessibilityEvent e) {
        int type = e.getEventType();
        int changes = type == AccessibilityEvent.TYPE_WINDOW_CONTENT_CHANGED ? e.getContentChangeTypes() : 0;
        int windowId = e.getWindowId();
        return EventReading.of(type, changes, windowId, NodeIds.sourceKey(e, windowId));
    }

    private void check() throws PlatformException {
        if (released) throw new PlatformException("automation_unavailable", "UI automation was released");
    }

    @Override
    public List<RawWindow> windows() throws PlatformException {
        check();
        List<AccessibilityWindowInfo> infos = ua.getWindows();
        List<RawWindow> out = new ArrayList<>();
        if (infos != null) for (AccessibilityWindowInfo i : infos) out.add(new AndroidWindow(i));
        Collections.sort(out, new Comparator<RawWindow>() {
            @Override
            public int compare(RawWindow a, RawWindow b) {
                return Integer.compare(b.layer(), a.layer());
            }
        });
        return out;
    }

    @Override
    public DisplayInfo display() throws PlatformException {
        try {
            int[] d = Displays.info();
            return new DisplayInfo(d[0], d[1], d[2], d[3]);
        } catch (MissingApi e) {
            throw new PlatformException("internal", e.getMessage());
        }
    }

    @Override
    public int[] focusedTaskBounds() {
        return Tasks.focusedBounds();
    }

    @Override
    public void setEventSink(Platform.EventSink sink) {
        this.sink = sink;
    }

    /** How input goes out (wrappers/InputInjection: never waiting for animations or for the app). */
    public InputInjection.Path injectionPath() {
        return injection.path;
    }

    @Override
    public boolean injectTouch(int action, int x, int y, long downTimeMs, long eventTimeMs) throws PlatformException {
        check();
        MotionEvent ev = MotionEvent.obtain(uptimeOffsetMs + downTimeMs, uptimeOffsetMs + eventTimeMs, action, x, y, 0);
        ev.setSource(InputDevice.SOURCE_TOUCHSCREEN);
        try {
            return inject(ev, false);
        } finally {
            ev.recycle();
        }
    }

    /**
     * A MotionEvent of several pointers as InputManager takes it: PointerProperties with the id and
     * TOOL_TYPE_FINGER, PointerCoords with the position and pressure 1 (MotionEvent.obtain's
     * pointer form, API 14), from the touchscreen (InputDispatcher's validateMotionEvent checks
     * the count, the ids and the action's index: frameworks/native InputDispatcher.cpp).
     */
    @Override
    public boolean injectMotion(int action, int[] ids, int[] xs, int[] ys, long downTimeMs, long eventTimeMs)
            throws PlatformException {
        check();
        int n = ids.length;
        MotionEvent.PointerProperties[] properties = new MotionEvent.PointerProperties[n];
        MotionEvent.PointerCoords[] coords = new MotionEvent.PointerCoords[n];
        for (int i = 0; i < n; i++) {
            properties[i] = new MotionEvent.PointerProperties();
            properties[i].id = ids[i];
            properties[i].toolType = MotionEvent.TOOL_TYPE_FINGER;
            coords[i] = new MotionEvent.PointerCoords();
            coords[i].x = xs[i];
            coords[i].y = ys[i];
            coords[i].pressure = 1f;
            coords[i].size = 1f;
        }
        MotionEvent ev = MotionEvent.obtain(uptimeOffsetMs + downTimeMs, uptimeOffsetMs + eventTimeMs, action, n,
            properties, coords, 0, 0, 1f, 1f, 0, 0, InputDevice.SOURCE_TOUCHSCREEN, 0);
        try {
            return inject(ev, false);
        } finally {
            ev.recycle();
        }
    }

    @Override
    public boolean injectKey(int action, int code, int meta, long downTimeMs, long eventTimeMs) throws PlatformException {
        check();
        return inject(keyEvent(action, code, meta, downTimeMs, eventTimeMs), false);
    }

    /**
     * The waiting injection runs on a thread of its own, so that a busy app, which
     * InputManagerService would wait for up to INJECTION_TIMEOUT_MILLIS (30 s), holds the caller
     * (and the agent's input lock) no longer than {@code waitMs}.
     */
    @Override
    public KeyWait injectKeyAndWait(int action, int code, int meta, long downTimeMs, long eventTimeMs, long waitMs)
            throws PlatformException {
        check();
        final KeyEvent ev = keyEvent(action, code, meta, downTimeMs, eventTimeMs);
        FutureTask<Boolean> task = new FutureTask<>(() -> inject(ev, true));
        Thread t = new Thread(task, "mobile-agent-key-wait");
        t.setDaemon(true);
        t.start();
        try {
            return task.get(waitMs, TimeUnit.MILLISECONDS) ? KeyWait.HANDLED : KeyWait.REFUSED;
        } catch (TimeoutException e) {
            return KeyWait.PENDING;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return KeyWait.PENDING;
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof PlatformException) throw (PlatformException) cause;
            if (cause instanceof RuntimeException) throw (RuntimeException) cause;
            if (cause instanceof Error) throw (Error) cause;
            throw new PlatformException("internal", "the key injection failed: " + cause);
        }
    }

    private KeyEvent keyEvent(int action, int code, int meta, long downTimeMs, long eventTimeMs) {
        return new KeyEvent(uptimeOffsetMs + downTimeMs, uptimeOffsetMs + eventTimeMs, action, code, 0, meta,
            KeyCharacterMap.VIRTUAL_KEYBOARD, 0, 0, InputDevice.SOURCE_KEYBOARD);
    }

    private boolean inject(android.view.InputEvent ev, boolean waitForApp) throws PlatformException {
        try {
            return waitForApp ? injection.injectAndWait(ev) : injection.inject(ev);
        } catch (SecurityException e) {
            throw PlatformException.injectionRefused(e.getMessage());
        } catch (MissingApi e) {
            throw new PlatformException("internal", e.getMessage());
        }
    }

    @Override
    public List<KeyStroke> keyStrokesFor(String text) {
        KeyEvent[] events = KeyCharacterMap.load(KeyCharacterMap.VIRTUAL_KEYBOARD).getEvents(text.toCharArray());
        if (events == null) return null;
        List<KeyStroke> out = new ArrayList<>(events.length);
        for (KeyEvent e : events) out.add(new KeyStroke(e.getAction(), e.getKeyCode(), e.getMetaState()));
        return out;
    }

    @Override
    public PNode focusedInput() throws PlatformException {
        check();
        AccessibilityNodeInfo n = ua.findFocus(AccessibilityNodeInfo.FOCUS_INPUT);
        return n == null ? null : new AndroidNode(n);
    }

    /** Root, or a locked device (platform.ClipboardRefusal: what ClipboardService does then). */
    @Override
    public String clipboardReadRefusal() {
        int uid = android.os.Process.myUid();
        return ClipboardRefusal.of(uid, uid != ClipboardRefusal.ROOT_UID && deviceLocked());
    }

    private Keyguard keyguard;

    /** Whether the device is locked; unknown (the trust service missing) counts as unlocked. */
    private synchronized boolean deviceLocked() {
        try {
            if (keyguard == null) keyguard = Keyguard.connect();
            return keyguard.deviceLocked();
        } catch (MissingApi | RuntimeException e) {
            return false;
        }
    }

    private synchronized Clipboards clipboards() throws PlatformException {
        if (clipboards == null) {
            try {
                clipboards = Clipboards.connect();
            } catch (MissingApi e) {
                throw new PlatformException("internal", e.getMessage());
            }
        }
        return clipboards;
    }

    @Override
    public Object saveClipboard() throws PlatformException {
        try {
            return clipboards().save();
        } catch (MissingApi e) {
            throw new PlatformException("internal", e.getMessage());
        }
    }

    @Override
    public String readClipboardText() throws PlatformException {
        Object saved = saveClipboard();
        if (saved == Platform.UNREADABLE_CLIP) {
            throw new PlatformException("internal", "the clipboard holds a clip the shell may not read");
        }
        ClipData clip = (ClipData) saved;
        if (clip == null || clip.getItemCount() == 0) return null;
        CharSequence text = clip.getItemAt(0).getText();
        return text == null ? null : text.toString();
    }

    /** SystemUI's extra: no clipboard overlay for a clip from com.android.shell (ClipboardListener). */
    static final String EXTRA_SUPPRESS_OVERLAY = "com.android.systemui.SUPPRESS_CLIPBOARD_OVERLAY";

    @Override
    public void setClipboardText(String text, boolean unseen) throws PlatformException {
        ClipData clip = ClipData.newPlainText("mobile-agent", text);
        setClip(unseen ? unseen(clip) : clip);
    }

    @Override
    public void restoreClipboard(Object saved, final boolean unseen) throws PlatformException {
        try {
            clipboards().restore(saved, clip -> unseen ? unseen(clip) : clip);
        } catch (MissingApi e) {
            throw new PlatformException("internal", e.getMessage());
        } catch (SecurityException e) {
            throw new PlatformException("internal", "the clipboard refused the clip: " + e.getMessage());
        }
    }

    private void setClip(ClipData clip) throws PlatformException {
        try {
            clipboards().set(clip);
        } catch (MissingApi e) {
            throw new PlatformException("internal", e.getMessage());
        } catch (SecurityException e) {
            throw new PlatformException("internal", "the clipboard refused the clip: " + e.getMessage());
        }
    }

    /** The clip with EXTRA_SUPPRESS_OVERLAY among its description's extras (ClipDescription.setExtras, API 24). */
    static ClipData unseen(ClipData clip) {
        ClipDescription description = clip.getDescription();
        PersistableBundle had = description.getExtras();
        PersistableBundle extras = had == null ? new PersistableBundle() : new PersistableBundle(had);
        extras.putBoolean(EXTRA_SUPPRESS_OVERLAY, true);
        description.setExtras(extras);
        return clip;
    }

    /**
     * UiAutomation's screenshot, its HARDWARE bitmap copied where the API has the config, else
     * screencap's (Screenshots); upright in every orientation (encode).
     */
    @Override
    public Screenshot screenshot(final String format, final int quality) throws PlatformException {
        check();
        final DisplayInfo d = display();
        return Screenshots.take(
            () -> encode(notAllZero(softwareCopy(uiAutomationBitmap())), d, format, quality, Screenshots.UI_AUTOMATION),
            () -> encode(screencapBitmap(), d, format, quality, Screenshots.SCREENCAP));
    }

    private Bitmap uiAutomationBitmap() throws PlatformException {
        Bitmap b = ua.takeScreenshot();
        if (b == null) throw new PlatformException("screenshot_failed", "UiAutomation.takeScreenshot returned no image");
        return b;
    }

    /**
     * A HARDWARE bitmap (Bitmap.Config.HARDWARE, API 26) copied to ARGB_8888 before it is read:
     * UiAutomationConnection.takeScreenshot returns screenshotBuffer.asBitmap() on Android 13 and 14.
     */
    static Bitmap softwareCopy(Bitmap b) throws PlatformException {
        if (Build.VERSION.SDK_INT < 26 || b.getConfig() != Bitmap.Config.HARDWARE) return b;
        Bitmap copy = b.copy(Bitmap.Config.ARGB_8888, false);
        b.recycle();
        if (copy == null) {
            throw new PlatformException("screenshot_failed", "copying the HARDWARE bitmap to ARGB_8888 failed");
        }
        return copy;
    }

    /** The bitmap, unless its sampled pixels are all zero (Screenshots.requireNotAllZero); recycled then. */
    static Bitmap notAllZero(Bitmap b) throws PlatformException {
        int[][] points = Screenshots.samplePoints(b.getWidth(), b.getHeight());
        int[] samples = new int[points.length];
        for (int i = 0; i < points.length; i++) samples[i] = b.getPixel(points[i][0], points[i][1]);
        try {
            Screenshots.requireNotAllZero(samples);
        } catch (PlatformException e) {
            b.recycle();
            throw e;
        }
        return b;
    }

    private static Bitmap screencapBitmap() throws PlatformException {
        byte[] png = Screencap.png(Screencap.TIMEOUT_MS, Screencap.command(Displays.physicalId()));
        Bitmap b = BitmapFactory.decodeByteArray(png, 0, png.length);
        if (b == null) throw new PlatformException("screenshot_failed", "screencap's output is not an image");
        return b;
    }

    /**
     * Encodes the capture, turning one taken in the natural orientation under a rotated display
     * (older releases; UiAutomation.takeScreenshot is upright on current ones).
     */
    private static Screenshot encode(Bitmap b, DisplayInfo d, String format, int quality, String capture)
            throws PlatformException {
        boolean displayLandscape = d.width > d.height;
        boolean imageLandscape = b.getWidth() > b.getHeight();
        if (displayLandscape != imageLandscape && b.getWidth() != b.getHeight()) {
            Matrix m = new Matrix();
            m.postRotate(d.rotation == 1 ? -90 : 90);
            Bitmap turned = Bitmap.createBitmap(b, 0, 0, b.getWidth(), b.getHeight(), m, false);
            b.recycle();
            b = turned;
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        boolean ok = b.compress("jpeg".equals(format) ? Bitmap.CompressFormat.JPEG : Bitmap.CompressFormat.PNG, quality, out);
        int w = b.getWidth();
        int h = b.getHeight();
        b.recycle();
        if (!ok || out.size() == 0) throw new PlatformException("screenshot_failed", "encoding the screenshot failed");
        return new Screenshot(format, w, h, d.rotation, out.toByteArray(), capture);
    }

    @Override
    public void dropCachedNodes() {
        try {
            AccessibilityCaches.clear(ua);
        } catch (MissingApi | RuntimeException e) {
            if (!cacheWarned) {
                cacheWarned = true;
                java.util.logging.Logger.getLogger("dev.mobileagent.agent").warning("cannot clear the accessibility cache: " + e.getMessage());
            }
        }
    }

    /** Releases UI automation leaving the rotation as it is (UiAutomations.unregister, never disconnect()). */
    @Override
    public synchronized void release() {
        if (released) return;
        released = true;
        try {
            UiAutomations.unregister(ua);
        } catch (MissingApi | RuntimeException e) {
            // the process exits next: the system releases the slot on the connection's death
        }
        looperThread.quitSafely();
    }
}
