package dev.mobileagent.agent.tree;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import dev.mobileagent.agent.core.Agent;
import dev.mobileagent.agent.core.Deadline;
import dev.mobileagent.agent.fake.FakeClock;
import dev.mobileagent.agent.fake.FakeNode;
import dev.mobileagent.agent.fake.FakePlatform;
import dev.mobileagent.agent.fake.FakeWindow;
import org.json.JSONArray;
import org.json.JSONObject;
import org.junit.Test;

/** The NODE's accessibility fields (docs/protocol.md, capability a11y_fields): sent where they differ from their defaults. */
public class AccessibilityFieldsTest {
    private static JSONObject byRes(JSONObject snapshot, String res) throws Exception {
        JSONArray windows = snapshot.getJSONArray("windows");
        for (int w = 0; w < windows.length(); w++) {
            JSONArray nodes = windows.getJSONObject(w).getJSONArray("nodes");
            for (int i = 0; i < nodes.length(); i++) {
                JSONObject n = nodes.getJSONObject(i);
                if (res.equals(n.opt("res"))) return n;
            }
        }
        throw new AssertionError("no node " + res);
    }

    private static JSONObject snapshot(FakeWindow window) throws Exception {
        FakeClock clock = new FakeClock();
        Agent agent = new Agent(new FakePlatform().add(window), clock);
        return agent.handle("snapshot", new JSONObject(), new Deadline(clock, 5000));
    }

    @Test
    public void aSlidersFieldsAndTheNodesItNamesAreSentByTheirSnapshotIds() throws Exception {
        FakeNode label = FakeNode.of("android.widget.TextView").res("volume_label").text("Volume").bounds(0, 0, 500, 100);
        FakeNode first = FakeNode.of("android.widget.TextView").res("first").text("First").bounds(0, 300, 500, 400);
        FakeNode slider = FakeNode.of("android.widget.SeekBar").res("volume").bounds(0, 100, 500, 200)
            .role("slider").state("40 percent").range("percent", 0, 100, 40).actions("set_progress", "Reset")
            .labeledBy(label).traversalAfter(first).error("Too loud");
        FakeNode hidden = FakeNode.of("android.view.View").res("decoration").bounds(0, 200, 500, 300).unimportant();
        FakeNode root = FakeNode.of("android.widget.FrameLayout").bounds(0, 0, 1080, 2400).pkg("dev.mobileagent.fixture")
            .add(label, slider, hidden, first);
        JSONObject snapshot = snapshot(new FakeWindow(12, "application", "Sliders", 1).withFocus().root(root));
        JSONObject s = byRes(snapshot, "volume");
        assertEquals("slider", s.getString("role"));
        assertEquals("40 percent", s.getString("state"));
        assertEquals("Too loud", s.getString("error"));
        JSONObject range = s.getJSONObject("range");
        assertEquals("percent", range.getString("type"));
        assertEquals(40.0, range.getDouble("current"), 0.0);
        assertEquals(100.0, range.getDouble("max"), 0.0);
        assertEquals("[\"set_progress\",\"Reset\"]", s.getJSONArray("actions").toString());
        assertEquals(byRes(snapshot, "volume_label").getInt("id"), s.getInt("labeled_by"));
        assertEquals(byRes(snapshot, "first").getInt("id"), s.getInt("traversal_after"));
        assertFalse(s.has("traversal_before"));
        assertFalse(byRes(snapshot, "decoration").getBoolean("important"));
    }

    @Test
    public void aNodeWithTheDefaultsHasNoneOfTheKeys() throws Exception {
        FakeNode plain = FakeNode.of("android.widget.TextView").res("plain").text("Plain").bounds(0, 0, 500, 100);
        FakeNode root = FakeNode.of("android.widget.FrameLayout").bounds(0, 0, 1080, 2400).add(plain);
        JSONObject node = byRes(snapshot(new FakeWindow(12, "application", "Plain", 1).withFocus().root(root)), "plain");
        for (String key : new String[] {"role", "state", "range", "error", "actions", "labeled_by", "important",
                                        "traversal_before", "traversal_after"}) {
            assertFalse(key, node.has(key));
        }
        assertTrue(node.has("children"));
    }
}
