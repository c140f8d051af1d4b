package dev.mobileagent.agent.digest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import dev.mobileagent.agent.Support;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import org.json.JSONArray;
import org.json.JSONObject;
import org.junit.Test;

/** The Java XXH3-64 against the digests Python's xxhash computed (tests/golden/xxh3_vectors.json). */
public class Xxh3Test {
    /** The generator the vectors file documents: a 64-bit LCG seeded with the length, top byte out. */
    static byte[] generate(int n) {
        byte[] out = new byte[n];
        long state = n;
        for (int i = 0; i < n; i++) {
            state = state * 6364136223846793005L + 1442695040888963407L;
            out[i] = (byte) (state >>> 56);
        }
        return out;
    }

    @Test
    public void everySharedVectorHasTheDigestPythonComputed() throws Exception {
        File f = new File(Support.repo(), "tests/golden/xxh3_vectors.json");
        JSONObject doc = new JSONObject(new String(Files.readAllBytes(f.toPath()), StandardCharsets.UTF_8));
        JSONArray vectors = doc.getJSONArray("vectors");
        assertTrue("the vectors cover every length class", vectors.length() >= 15);
        for (int i = 0; i < vectors.length(); i++) {
            JSONObject v = vectors.getJSONObject(i);
            int n = v.getInt("length");
            byte[] data = generate(n);
            String head = v.getString("head");
            StringBuilder hex = new StringBuilder();
            for (int j = 0; j < Math.min(8, n); j++) hex.append(String.format("%02x", data[j] & 0xff));
            assertEquals("the generator's first bytes, length " + n, head, hex.toString());
            assertEquals("XXH3-64 of " + n + " bytes", v.getString("xxh3_64"), Xxh3.hex64(data));
        }
    }

    @Test
    public void theBuildIsTheFirst12HexDigitsOfTheDigest() {
        assertEquals("2d06800538d3", BuildDigest.of(new byte[0]));
        byte[] data = generate(100000);
        assertEquals(Xxh3.hex64(data).substring(0, 12), BuildDigest.of(data));
    }

    @Test
    public void theBuildOfAFileIsTheDigestOfItsBytes() throws Exception {
        File tmp = File.createTempFile("agent", ".jar");
        try {
            Files.write(tmp.toPath(), generate(4096));
            assertEquals(BuildDigest.of(generate(4096)), BuildDigest.ofFile(BuildDigest.firstEntry(tmp.getPath() + ":/other.jar")));
        } finally {
            tmp.delete();
        }
    }
}
