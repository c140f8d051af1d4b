package dev.mobileagent.agent.wrappers;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.json.JSONArray;
import org.json.JSONObject;
import org.junit.Test;

/**
 * Hidden-API habits, as scrcpy's wrappers keep them: every wrapper that falls back from one form of
 * a hidden API to another names in its comments the Android release that made the fallback
 * necessary; and the stub manifest says what UiAutomation's constructors are
 * (core/java/android/app/UiAutomation.java: (Context, IUiAutomationConnection), (Looper,
 * IUiAutomationConnection), and a private (int, Looper, IUiAutomationConnection)).
 */
public class WrappersNameTheirReleasesTest {
    static final Pattern RELEASE = Pattern.compile("Android \\d+|API \\d+");
    static final Pattern COMMENT = Pattern.compile("/\\*.*?\\*/|//[^\\n]*", Pattern.DOTALL);

    static File agentDir() {
        String repo = System.getProperty("mobile_agent.repo");
        return new File(repo != null ? repo : "..", "agent-android");
    }

    static String comments(String source) {
        StringBuilder out = new StringBuilder();
        Matcher m = COMMENT.matcher(source);
        while (m.find()) out.append(m.group()).append('\n');
        return out.toString();
    }

    @Test
    public void everyWrapperThatFallsBackNamesTheReleaseThatMadeItNecessary() throws Exception {
        File dir = new File(agentDir(), "src/dev/mobileagent/agent/wrappers");
        List<String> silent = new ArrayList<>();
        int withFallbacks = 0;
        for (File f : dir.listFiles()) {
            String source = new String(Files.readAllBytes(f.toPath()), StandardCharsets.UTF_8);
            boolean fallsBack = source.contains("Reflect.optional(") || source.contains("getMethods()");
            if (f.getName().equals("Reflect.java") || !fallsBack) continue;
            withFallbacks++;
            if (!RELEASE.matcher(comments(source)).find()) silent.add(f.getName());
        }
        assertTrue("InputInjection, UiAutomations, AccessibilityCaches, NodeIds, Clipboards", withFallbacks >= 5);
        assertEquals(new ArrayList<String>(), silent);
    }

    @Test
    public void theManifestNamesUiAutomationsConstructorsAsAospDeclaresThem() throws Exception {
        File manifest = new File(agentDir(), "stubs/manifest.json");
        JSONArray hidden = new JSONObject(new String(Files.readAllBytes(manifest.toPath()), StandardCharsets.UTF_8))
            .getJSONArray("hidden");
        String note = null;
        for (int i = 0; i < hidden.length(); i++) {
            JSONObject h = hidden.getJSONObject(i);
            boolean constructors = h.getString("members").startsWith("UiAutomation(");
            if (h.getString("class").equals("android.app.UiAutomation") && constructors) {
                note = h.getString("members");
            }
        }
        assertTrue(note, note.contains("(Looper, IUiAutomationConnection)"));
        assertTrue(note, note.contains("(Context, IUiAutomationConnection)"));
        assertTrue(note, note.contains("(int, Looper, IUiAutomationConnection)"));
        assertFalse("no constructor takes a Context and a Looper", note.contains("Context first"));
    }
}
