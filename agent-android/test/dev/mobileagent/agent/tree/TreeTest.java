package dev.mobileagent.agent.tree;

import static dev.mobileagent.agent.Support.call;
import static dev.mobileagent.agent.Support.find;
import static dev.mobileagent.agent.Support.nodes;
import static dev.mobileagent.agent.Support.window;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import dev.mobileagent.agent.core.Agent;
import dev.mobileagent.agent.fake.FakeClock;
import dev.mobileagent.agent.fake.FakePlatform;
import dev.mobileagent.agent.fake.Fixtures;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.json.JSONArray;
import org.json.JSONObject;
import org.junit.Test;

/** Tree serialisation: every window, every key, caps with the full count, unique and stable ids. */
public class TreeTest {
    final FakeClock clock = new FakeClock();
    final FakePlatform platform = Fixtures.fixedUi();
    final Agent agent = new Agent(platform, clock);

    JSONObject snapshot(String params) throws Exception {
        return call(agent, clock, "snapshot", params);
    }

    void openBigTab() throws Exception {
        call(agent, clock, "tap", "{\"x\":900,\"y\":270}");
    }

    @Test
    public void theBigTabHas573NodesInTheAppWindow() throws Exception {
        openBigTab();
        JSONObject s = snapshot("{}");
        assertEquals(573, window(s, Fixtures.COMPOSE).getInt("node_count"));
        assertEquals(575, s.getInt("node_count"));
        assertFalse(s.getBoolean("truncated"));
        assertNotNull(find(s, "text", "Cell 499"));
    }

    @Test
    public void aLowerNodeCapTruncatesAndStillReportsTheFullCount() throws Exception {
        openBigTab();
        JSONObject s = snapshot("{\"max_nodes\":100}");
        assertEquals(100, nodes(s).size());
        assertTrue(s.getBoolean("truncated"));
        assertEquals(575, s.getInt("node_count"));
        assertEquals("each window keeps its whole count", 573, window(s, Fixtures.COMPOSE).getInt("node_count"));
        assertEquals("the top-most window comes first under the cap", 2, window(s, Fixtures.STATUS_BAR).getJSONArray("nodes").length());
    }

    @Test
    public void aDepthCapLeavesDeeperNodesOutAndCountsThem() throws Exception {
        JSONObject s = snapshot("{\"max_depth\":1}");
        for (JSONObject n : nodes(s)) assertTrue(n.toString(), n.getInt("depth") <= 1);
        assertTrue(s.getBoolean("truncated"));
        assertEquals(snapshot("{}").getInt("node_count"), s.getInt("node_count"));
    }

    @Test
    public void childrenNameOnlyTheSerializedNodes() throws Exception {
        JSONObject s = snapshot("{\"max_depth\":1}");
        Set<Integer> ids = new HashSet<>();
        for (JSONObject n : nodes(s)) ids.add(n.getInt("id"));
        for (JSONObject n : nodes(s)) {
            JSONArray kids = n.getJSONArray("children");
            for (int i = 0; i < kids.length(); i++) assertTrue(ids.contains(kids.getInt(i)));
        }
    }

    @Test
    public void nodeIdsAreUniqueAcrossTheWindowsOfOneSnapshot() throws Exception {
        call(agent, clock, "tap", "{\"x\":540,\"y\":570}"); // the username field: the keyboard comes up
        JSONObject s = snapshot("{}");
        assertEquals(3, s.getJSONArray("windows").length());
        Set<Integer> ids = new HashSet<>();
        for (JSONObject n : nodes(s)) assertTrue("duplicate id " + n.getInt("id"), ids.add(n.getInt("id")));
        assertEquals(s.getInt("node_count"), ids.size());
    }

    @Test
    public void everyNodeCarriesEveryKeyInPreOrderWithItsParent() throws Exception {
        String[] keys = {"id", "parent", "depth", "class", "text", "desc", "res", "hint", "package", "bounds", "clickable",
            "long_clickable", "focusable", "focused", "editable", "checkable", "checked", "enabled", "selected",
            "scrollable", "visible", "password", "scroll", "children"};
        JSONObject s = snapshot("{}");
        JSONArray ws = s.getJSONArray("windows");
        for (int w = 0; w < ws.length(); w++) {
            JSONArray ns = ws.getJSONObject(w).getJSONArray("nodes");
            assertTrue(ns.getJSONObject(0).isNull("parent"));
            Set<Integer> seen = new HashSet<>();
            for (int i = 0; i < ns.length(); i++) {
                JSONObject n = ns.getJSONObject(i);
                for (String k : keys) assertTrue(k + " missing in " + n, n.has(k));
                if (!n.isNull("parent")) assertTrue("a parent comes before its children", seen.contains(n.getInt("parent")));
                seen.add(n.getInt("id"));
            }
        }
    }

    @Test
    public void anInvisibleParentWithVisibleChildrenIsKept() throws Exception {
        JSONObject s = snapshot("{}");
        JSONObject tabs = find(s, "res", "tabs");
        JSONObject parent = null;
        for (JSONObject n : nodes(s)) if (n.getInt("id") == tabs.getInt("parent")) parent = n;
        assertNotNull(parent);
        assertFalse(parent.getBoolean("visible"));
        assertTrue(tabs.getBoolean("visible"));
    }

    @Test
    public void aScrollableContainerReportsItsScrollSemanticsAndVisibleRange() throws Exception {
        call(agent, clock, "tap", "{\"x\":540,\"y\":270}");
        JSONObject list = find(snapshot("{}"), "res", "list");
        JSONObject scroll = list.getJSONObject("scroll");
        assertTrue(scroll.getBoolean("vertical"));
        assertEquals(50, scroll.getInt("items"));
        assertEquals(0, scroll.getInt("first"));
        assertEquals(11, scroll.getInt("last"));
        assertTrue(find(snapshot("{}"), "text", "Login").isNull("scroll"));
    }

    @Test
    public void theKeyboardWindowAppearsWithItsKeysWhenAFieldIsFocused() throws Exception {
        assertNull(window(snapshot("{}"), Fixtures.KEYBOARD));
        call(agent, clock, "tap", "{\"x\":540,\"y\":570}");
        JSONObject s = snapshot("{}");
        JSONObject kb = window(s, Fixtures.KEYBOARD);
        assertNotNull("the keyboard's window is read with the others", kb);
        assertEquals("input_method", kb.getString("type"));
        assertEquals(FakePlatform.KEYBOARD_PACKAGE, kb.getString("owner"));
        assertEquals(11, kb.getJSONArray("nodes").length());
        assertNotNull(find(s, "desc", "q"));
        assertTrue(find(s, "res", "username").getBoolean("focused"));
    }

    @Test
    public void idsAreStableWhileTheWindowsCacheHoldsTheNode() throws Exception {
        int first = find(snapshot("{}"), "res", "username").getInt("id");
        assertEquals(first, find(snapshot("{}"), "res", "username").getInt("id"));
        assertEquals("a node read again after an eviction keeps its id", first,
            find(snapshot("{\"evict\":[12]}"), "res", "username").getInt("id"));
    }

    @Test
    public void aCachedWindowIsServedFromTheCacheUntilEvicted() throws Exception {
        snapshot("{}");
        platform.changeText(Fixtures.clockOf(platform.window(Fixtures.STATUS_BAR)), "12:34");
        // the status bar sends change events: its cache follows; the Compose window sends none
        platform.window(Fixtures.COMPOSE).rootNode().children().get(0).a.desc = "changed quietly";
        JSONObject s = snapshot("{}");
        assertNotNull(find(s, "text", "12:34"));
        assertNull("an event-less window is served from its cache", find(s, "desc", "changed quietly"));
        assertNotNull(find(snapshot("{\"evict_event_less\":true}"), "desc", "changed quietly"));
    }

    @Test
    public void anEvictionAlsoDropsThePlatformsOwnCachedNodes() throws Exception {
        snapshot("{}");
        assertEquals(0, platform.cacheDrops);
        snapshot("{\"evict\":[12]}");
        assertEquals(1, platform.cacheDrops);
        snapshot("{\"evict_event_less\":true}");
        assertEquals(2, platform.cacheDrops);
        call(agent, clock, "tap", "{\"x\":5,\"y\":2000}");
        assertEquals("the agent's own input evicts the Compose window", 3, platform.cacheDrops);
        call(agent, clock, "resync", "{}");
        assertEquals(4, platform.cacheDrops);
    }

    @Test
    public void anExplicitEvictionRereadsOnlyTheNamedWindow() throws Exception {
        snapshot("{}");
        platform.window(Fixtures.COMPOSE).rootNode().children().get(0).a.desc = "changed quietly";
        assertNotNull(find(snapshot("{\"evict\":[12]}"), "desc", "changed quietly"));
    }

    @Test
    public void theSnapshotCarriesTheDisplayAndTheSeq() throws Exception {
        JSONObject s = snapshot("{}");
        assertEquals("{\"width\":1080,\"height\":2400,\"density\":420,\"rotation\":0}", s.getJSONObject("display").toString());
        assertEquals(0, s.getLong("seq"));
        assertEquals(0, s.getJSONObject("idle").getLong("waited_ms"));
    }

    @Test
    public void tabsSwitchTheScreenAndIdsDiffer() throws Exception {
        List<JSONObject> login = nodes(snapshot("{}"));
        openBigTab();
        JSONObject big = snapshot("{}");
        assertNull(find(big, "res", "username"));
        assertNotEquals(login.size(), nodes(big).size());
    }
}
