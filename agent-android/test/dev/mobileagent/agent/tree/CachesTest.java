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
        return new WindowRead(window, Collections.singletonList(r), false);
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
    public void onlyEventLessWindowsAreDroppedByEvictEventLess() {
        Caches c = new Caches();
        int composeId = c.idFor(12, "compose");
        NodeAttrs virtual = new NodeAttrs();
        virtual.fromProvider = true;
        c.store(new WindowRead(12, Collections.singletonList(new NodeRecord(composeId, -1, 0, virtual, new int[0], null)), false),
            c.generation(12));
        c.store(read(c, 1, "bar"), c.generation(1));
        assertEquals(Collections.singletonList(12), c.invalidateEventLess());
        assertNull(c.current(12));
        assertEquals(1, c.current(1).nodes.size());
    }
}
