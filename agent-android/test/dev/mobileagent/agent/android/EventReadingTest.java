package dev.mobileagent.agent.android;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import android.view.accessibility.AccessibilityEvent;
import dev.mobileagent.agent.platform.PlatformEvent;
import dev.mobileagent.agent.wrappers.NodeIds;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.TreeSet;
import org.junit.Test;

/**
 * Events are read from what they carry, on UiAutomation's callback thread, without a call into the
 * app: AccessibilityRecord.getSource goes through AccessibilityInteractionClient to the app's UI
 * thread (up to its 5 s interaction timeout unless cached), so every event of a fling would queue
 * behind one (core/java/android/view/accessibility/AccessibilityRecord.java, getSource;
 * AccessibilityInteractionClient.java, findAccessibilityNodeInfoByAccessibilityId).
 */
public class EventReadingTest {
    @Test
    public void aContentChangeNamesItsSourceByTheIdsTheEventCarries() {
        NodeIds.Key source = new NodeIds.Key(12, 0xffffffff00000042L);
        PlatformEvent e = EventReading.of(AccessibilityEvent.TYPE_WINDOW_CONTENT_CHANGED,
            AccessibilityEvent.CONTENT_CHANGE_TYPE_TEXT | AccessibilityEvent.CONTENT_CHANGE_TYPE_SUBTREE, 12, source);
        assertEquals(PlatformEvent.CONTENT, e.kind);
        assertEquals(12, e.windowId);
        assertEquals(new TreeSet<>(Arrays.asList("structure", "text")), new TreeSet<>(e.kinds));
        Object readKey = new NodeIds.Key(12, 0xffffffff00000042L);
        assertEquals("the key a read of that node has", Collections.singletonList(readKey), e.nodeKeys);
    }

    @Test
    public void anEventWhoseSourceIdCannotBeReadStillNamesItsWindowAndKinds() {
        PlatformEvent e = EventReading.of(AccessibilityEvent.TYPE_VIEW_SCROLLED, 0, 7, null);
        assertEquals(PlatformEvent.CONTENT, e.kind);
        assertEquals(7, e.windowId);
        assertEquals(Collections.singleton("scroll"), e.kinds);
        assertTrue(e.nodeKeys.isEmpty());
    }

    @Test
    public void windowsChangedAndOtherEventsCarryNoNodes() {
        assertEquals(PlatformEvent.WINDOWS, EventReading.of(AccessibilityEvent.TYPE_WINDOWS_CHANGED, 0, 3, null).kind);
        PlatformEvent other = EventReading.of(1 << 20, 0, 3, new NodeIds.Key(3, 1));
        assertEquals(PlatformEvent.OTHER, other.kind);
        assertTrue(other.nodeKeys.isEmpty());
    }

    @Test
    public void aContentChangeOfNoKnownTypeCountsAsContent() {
        assertEquals(Collections.singleton("content"),
            EventReading.of(AccessibilityEvent.TYPE_WINDOW_CONTENT_CHANGED, 0, 1, null).kinds);
    }

    @Test
    public void nothingInThePlatformsEventPathCallsAccessibilityRecordGetSource() throws Exception {
        // the old AndroidPlatform.translate called e.getSource() for every content event
        List<String> callers = new ArrayList<>();
        File dir = new File(AndroidPlatform.class.getResource("AndroidPlatform.class").toURI()).getParentFile();
        for (File f : dir.listFiles()) {
            if (!f.getName().startsWith("AndroidPlatform") && !f.getName().startsWith("EventReading")) continue;
            if (refersTo(Files.readAllBytes(f.toPath()), "getSource")) callers.add(f.getName());
        }
        assertTrue(dir.list().length > 2);
        assertEquals(Collections.emptyList(), callers);
    }

    @Test
    public void theClassFileCheckFindsAMethodNameInTheConstantPool() {
        byte[] pool = constantUtf8("getSource");
        assertTrue(refersTo(pool, "getSource"));
        assertFalse("another name that starts the same", refersTo(constantUtf8("getSourceNodeId"), "getSource"));
    }

    /** Whether a class file's constant pool holds this name as a CONSTANT_Utf8 entry of its own. */
    static boolean refersTo(byte[] classFile, String name) {
        byte[] entry = constantUtf8(name);
        outer:
        for (int i = 0; i + entry.length <= classFile.length; i++) {
            for (int j = 0; j < entry.length; j++) if (classFile[i + j] != entry[j]) continue outer;
            return true;
        }
        return false;
    }

    static byte[] constantUtf8(String name) {
        byte[] text = name.getBytes(StandardCharsets.UTF_8);
        byte[] entry = new byte[text.length + 3];
        entry[0] = 1; // CONSTANT_Utf8
        entry[1] = (byte) (text.length >> 8);
        entry[2] = (byte) text.length;
        System.arraycopy(text, 0, entry, 3, text.length);
        return entry;
    }

    @Test
    public void aToastsNotificationEventIsAToastWithItsTextAndANotificationsIsNot() {
        PlatformEvent toast = EventReading.toast(AccessibilityEvent.TYPE_NOTIFICATION_STATE_CHANGED,
            "android.widget.Toast", Arrays.<CharSequence>asList("Saved"), "dev.mobileagent.fixture", 1234L);
        assertEquals(PlatformEvent.TOAST, toast.kind);
        assertEquals("Saved", toast.text);
        assertEquals("dev.mobileagent.fixture", toast.packageName);
        assertEquals(1234L, toast.atMs);
        PlatformEvent old = EventReading.toast(AccessibilityEvent.TYPE_NOTIFICATION_STATE_CHANGED,
            "android.widget.Toast$TN", Arrays.<CharSequence>asList("one", "two"), null, 5L);
        assertEquals("one\ntwo", old.text);
        assertEquals(null, old.packageName);
        assertEquals(null, EventReading.toast(AccessibilityEvent.TYPE_NOTIFICATION_STATE_CHANGED,
            "android.app.Notification", Arrays.<CharSequence>asList("3 new messages"), "com.example", 5L));
        assertEquals(null, EventReading.toast(AccessibilityEvent.TYPE_WINDOW_STATE_CHANGED,
            "android.widget.Toast", Arrays.<CharSequence>asList("x"), "com.example", 5L));
        assertEquals(null, EventReading.toast(AccessibilityEvent.TYPE_NOTIFICATION_STATE_CHANGED,
            "android.widget.ToastLike", Arrays.<CharSequence>asList("x"), "com.example", 5L));
    }
}
