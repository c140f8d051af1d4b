package dev.mobileagent.agent.tree;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import dev.mobileagent.agent.platform.NodeAttrs;
import java.util.Arrays;
import java.util.Collections;
import org.junit.Test;

/** The per-window caches: ids unique across windows, a read overtaken by an invalidation not kept. */
public class CachesTest {
    static WindowRead read(Caches c, int window, Object key) {
        int id = c.idFor(window, key);
        NodeRecord r = new NodeRecord(id, -1, 0, new NodeAttrs(), new int[0], null);
        return new WindowRead(window, Collections.singletonList(r), false, 0, true);
    }

    @Test
    public void idsAreUniqueAcrossWindowsAndStableForAKey() {
        Caches c = new Caches();
        Object key = "same key in two windows";
        int a = c.idFor(1, key);
        int b = c.idFor(2, key);
        assertNotEquals(a, b);
        assertEquals(a, c.idFor(1, key));
        assertEquals(a, c.knownId(1, key));
        assertEquals(-1, c.knownId(3, key));
    }

    @Test
    public void aReadOvertakenByAnInvalidationIsNotKept() {
        Caches c = new Caches();
        long generation = c.generation(12);
        WindowRead slow = read(c, 12, "root");
        c.invalidate(12); // an event arrived while the read ran
        assertFalse(c.store(slow, generation));
        assertNull(c.current(12));
        long now = c.generation(12);
        assertTrue(c.store(read(c, 12, "root"), now));
        assertEquals(1, c.current(12).nodes.size());
    }

    @Test
    public void aWindowThatGoesAwayTakesItsNodesAlong() {
        Caches c = new Caches();
        WindowRead r = read(c, 5, "n");
        c.store(r, c.generation(5));
        int id = r.nodes.get(0).id;
        assertEquals(r.nodes.get(0), c.node(id));
        c.retainWindows(Arrays.asList(6));
        assertNull(c.node(id));
        assertNull(c.current(5));
    }

    @Test
    public void aKeptReadForgetsTheNodesTheWindowNoLongerHas() {
        Caches c = new Caches();
        for (int screen = 0; screen < 100; screen++) {
            long g = c.generation(12);
            int id = c.idFor(12, "node of screen " + screen);
            WindowRead r = new WindowRead(12, Collections.singletonList(
                new NodeRecord(id, -1, 0, new NodeAttrs(), new int[0], new KeyNode("node of screen " + screen))), false, 0, true);
            assertTrue(c.store(r, g));
        }
        assertEquals("only the current screen's node is known", 1, c.knownIds());
        long g = c.generation(12);
        int again = c.idFor(12, "node of screen 99");
        assertEquals("a node still there keeps its id", c.knownId(12, "node of screen 99"), again);
        assertTrue(c.store(new WindowRead(12, Collections.singletonList(
            new NodeRecord(again, -1, 0, new NodeAttrs(), new int[0], new KeyNode("node of screen 99"))), false, 0, true), g));
        assertEquals(again, c.knownId(12, "node of screen 99"));
    }

    /** A node whose key is a string. */
    static final class KeyNode implements dev.mobileagent.agent.platform.PNode {
        final Object key;

        KeyNode(Object key) {
            this.key = key;
        }

        @Override public Object key() { return key; }
        @Override public NodeAttrs attrs() { return new NodeAttrs(); }
        @Override public int childCount() { return 0; }
        @Override public dev.mobileagent.agent.platform.PNode child(int index) { return null; }
        @Override public int[] liveBounds() { return null; }
        @Override public String liveText() { return null; }
        @Override public boolean canSetText() { return false; }
        @Override public boolean setText(String text) { return false; }
        @Override public boolean paste() { return false; }
        @Override public boolean focus() { return false; }
        @Override public boolean offersImeEnter() { return false; }
        @Override public boolean imeEnter() { return false; }
    }

    @Test
    public void onlyEventLessWindowsAreDroppedByEvictEventLess() {
        Caches c = new Caches();
        int composeId = c.idFor(12, "compose");
        NodeAttrs virtual = new NodeAttrs();
        virtual.fromProvider = true;
        c.store(new WindowRead(12, Collections.singletonList(new NodeRecord(composeId, -1, 0, virtual, new int[0], null)), false, 0, true),
            c.generation(12));
        c.store(read(c, 1, "bar"), c.generation(1));
        assertEquals(Collections.singletonList(12), c.invalidateEventLess());
        assertNull(c.current(12));
        assertEquals(1, c.current(1).nodes.size());
    }
}
