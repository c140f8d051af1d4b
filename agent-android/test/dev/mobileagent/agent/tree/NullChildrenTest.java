package dev.mobileagent.agent.tree;

import static dev.mobileagent.agent.Support.call;
import static dev.mobileagent.agent.Support.find;
import static dev.mobileagent.agent.Support.window;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import dev.mobileagent.agent.core.Agent;
import dev.mobileagent.agent.fake.FakeClock;
import dev.mobileagent.agent.fake.FakeNode;
import dev.mobileagent.agent.fake.FakePlatform;
import dev.mobileagent.agent.fake.FakeWindow;
import dev.mobileagent.agent.fake.Fixtures;
import org.json.JSONObject;
import org.junit.Test;

/**
 * Children the platform does not give: AccessibilityNodeInfo.getChild(i) returns null for node
 * providers, WebViews, embedded hierarchies and timeouts. The agent asks once more, then skips the
 * child and counts it per window (`skipped_children`), as uiautomator's dumper skips a null child
 * (AccessibilityNodeInfoDumper.dumpNodeRec); a window without its root yet (getRoot() null) is
 * answered empty and not cached.
 */
public class NullChildrenTest {
    final FakeClock clock = new FakeClock();

    @Test
    public void aChildThePlatformNeverGivesIsSkippedAndCounted() throws Exception {
        FakePlatform p = new FakePlatform().add(Fixtures.statusBar()).add(Fixtures.webPage());
        JSONObject s = call(new Agent(p, clock), clock, "snapshot", "{}");
        JSONObject web = window(s, Fixtures.WEB);
        assertEquals(1, web.getInt("skipped_children"));
        assertNotNull(find(s, "text", "Heading"));
        assertNotNull("the children after it are read", find(s, "text", "Continue"));
        assertNull(find(s, "text", "Lost paragraph"));
        JSONObject webView = find(s, "res", "web");
        assertEquals("the parent names only the children read", 2, webView.getJSONArray("children").length());
        assertEquals(0, window(s, Fixtures.STATUS_BAR).getInt("skipped_children"));
    }

    @Test
    public void nullChildrenInEveryReadNeverMakeTheSnapshotBusy() throws Exception {
        FakePlatform p = Fixtures.fixedUi();
        FakeNode content = p.window(Fixtures.COMPOSE).rootNode().children().get(0);
        content.nullChild(0, -1).nullChild(1, -1); // the tab row and the page: both never given
        JSONObject s = call(new Agent(p, clock), clock, "snapshot", "{}");
        assertEquals(2, window(s, Fixtures.COMPOSE).getInt("skipped_children"));
        assertEquals(2, window(s, Fixtures.COMPOSE).getInt("node_count"));
    }

    @Test
    public void aChildMissingOnceIsAskedForAgainAndRead() throws Exception {
        FakePlatform p = Fixtures.fixedUi();
        FakeNode content = p.window(Fixtures.COMPOSE).rootNode().children().get(0);
        content.nullChild(1, 1); // a binder timeout: the next getChild gives it
        JSONObject s = call(new Agent(p, clock), clock, "snapshot", "{}");
        assertEquals(0, window(s, Fixtures.COMPOSE).getInt("skipped_children"));
        assertNotNull(find(s, "res", "username"));
    }

    @Test
    public void aReadThatSkippedChildrenIsNotServedFromTheCache() throws Exception {
        FakePlatform p = new FakePlatform().add(Fixtures.webPage());
        Agent agent = new Agent(p, clock);
        FakeNode web = p.window(Fixtures.WEB).rootNode().children().get(0);
        call(agent, clock, "snapshot", "{}");
        int reads = web.childReads;
        web.nullChild(1, 0); // the paragraph can be fetched now
        JSONObject s = call(agent, clock, "snapshot", "{}");
        assertTrue("read again", web.childReads > reads);
        assertNotNull(find(s, "text", "Lost paragraph"));
        assertEquals(0, window(s, Fixtures.WEB).getInt("skipped_children"));
    }

    @Test
    public void aWindowWithoutItsRootYetIsAnsweredEmptyAndReadAgainOnceItHasOne() throws Exception {
        FakePlatform p = new FakePlatform();
        FakeWindow app = new FakeWindow(Fixtures.COMPOSE, "application", "Compose fixture", 1).withFocus().eventLess();
        p.add(app);
        Agent agent = new Agent(p, clock);
        JSONObject early = window(call(agent, clock, "snapshot", "{}"), Fixtures.COMPOSE);
        assertEquals(0, early.getInt("node_count"));
        assertFalse("not known to send change events", early.getBoolean("sends_change_events"));
        app.root(Fixtures.composeApp().rootNode()); // the content arrives; Compose sends no event for it
        JSONObject later = call(agent, clock, "snapshot", "{}");
        assertNotNull("the empty read was not cached", find(later, "res", "username"));
    }
}
