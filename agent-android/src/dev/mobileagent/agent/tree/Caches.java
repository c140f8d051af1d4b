package dev.mobileagent.agent.tree;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The per-window node caches and the node ids. Ids are unique across all windows (one counter) and
 * stable for a node while its window lives. A window's cache is current until an event names the
 * window, a request evicts it, or the window goes away. Reads happen outside the lock: a reader
 * takes the window's generation first and stores its result only if nothing invalidated the window
 * meanwhile, so a slow read never blocks another request.
 */
public final class Caches {
    private final Map<Integer, WindowCache> windows = new HashMap<>();
    private final Map<Integer, NodeRecord> byId = new HashMap<>();
    private int nextId = 1;

    private static final class WindowCache {
        final Map<Object, Integer> ids = new HashMap<>();
        /** Every id handed out for this window and not forgotten yet. */
        final Set<Integer> members = new HashSet<>();
        WindowRead current;
        long generation;
        /** Known after the first read; null before. */
        Boolean sendsChangeEvents;
    }

    private WindowCache cache(int windowId) {
        WindowCache c = windows.get(windowId);
        if (c == null) {
            c = new WindowCache();
            windows.put(windowId, c);
        }
        return c;
    }

    /** The id of a node, allocated on first sight. */
    public synchronized int idFor(int windowId, Object key) {
        WindowCache c = cache(windowId);
        Integer id = c.ids.get(key);
        if (id == null) {
            id = nextId++;
            c.ids.put(key, id);
            c.members.add(id);
        }
        return id;
    }

    /** The id of a node already seen, or -1. */
    public synchronized int knownId(int windowId, Object key) {
        WindowCache c = windows.get(windowId);
        if (c == null) return -1;
        Integer id = c.ids.get(key);
        return id == null ? -1 : id;
    }

    /** The window's current read, or null when it must be read. */
    public synchronized WindowRead current(int windowId) {
        WindowCache c = windows.get(windowId);
        return c == null ? null : c.current;
    }

    public synchronized long generation(int windowId) {
        return cache(windowId).generation;
    }

    /**
     * Stores a read taken at {@code generation}; a read overtaken by an invalidation is not kept,
     * nor one that is not whole (a window without its root yet, children left out), which the
     * next snapshot reads again.
     * A kept read also forgets the window's nodes it no longer has, so that the ids of a window
     * whose content keeps changing (a long list scrolled through) do not pile up.
     */
    public synchronized boolean store(WindowRead read, long generation) {
        WindowCache c = cache(read.windowId);
        if (read.hadRoot) c.sendsChangeEvents = read.sendsChangeEvents();
        for (NodeRecord r : read.nodes) {
            byId.put(r.id, r);
            c.members.add(r.id);
        }
        if (c.generation != generation || !read.cacheable()) return false;
        c.current = read;
        Set<Integer> present = new HashSet<>();
        Map<Object, Integer> kept = new HashMap<>();
        for (NodeRecord r : read.nodes) {
            present.add(r.id);
            if (r.node != null) kept.put(r.node.key(), r.id);
        }
        for (Integer id : c.members) {
            if (!present.contains(id)) byId.remove(id);
        }
        c.members.retainAll(present);
        c.ids.clear();
        c.ids.putAll(kept);
        return true;
    }

    /** How many node ids the agent knows (all windows). */
    public synchronized int knownIds() {
        return byId.size();
    }

    /** Whether the window's toolkit sends change events, as its last read showed (null: never read). */
    public synchronized Boolean sendsChangeEvents(int windowId) {
        WindowCache c = windows.get(windowId);
        return c == null ? null : c.sendsChangeEvents;
    }

    /** Drops the window's cached nodes (ids stay, so a node keeps its id when read again). */
    public synchronized void invalidate(int windowId) {
        WindowCache c = windows.get(windowId);
        if (c == null) return;
        c.current = null;
        c.generation++;
    }

    /** Drops the caches of every window whose toolkit sends no change events; returns their ids. */
    public synchronized List<Integer> invalidateEventLess() {
        List<Integer> out = new ArrayList<>();
        for (Map.Entry<Integer, WindowCache> e : windows.entrySet()) {
            if (Boolean.FALSE.equals(e.getValue().sendsChangeEvents)) {
                e.getValue().current = null;
                e.getValue().generation++;
                out.add(e.getKey());
            }
        }
        return out;
    }

    /** Forgets the windows that are gone, their nodes and ids. */
    public synchronized void retainWindows(Collection<Integer> present) {
        Set<Integer> keep = new HashSet<>(present);
        Iterator<Map.Entry<Integer, WindowCache>> it = windows.entrySet().iterator();
        while (it.hasNext()) {
            Map.Entry<Integer, WindowCache> e = it.next();
            if (keep.contains(e.getKey())) continue;
            for (Integer id : e.getValue().members) byId.remove(id);
            it.remove();
        }
    }

    /** Drops every cache (resync); ids already handed out are never reused. */
    public synchronized void clear() {
        for (WindowCache c : windows.values()) {
            c.current = null;
            c.generation++;
        }
    }

    /** The latest record of a node id, or null when the agent does not know it. */
    public synchronized NodeRecord node(int id) {
        return byId.get(id);
    }

}
