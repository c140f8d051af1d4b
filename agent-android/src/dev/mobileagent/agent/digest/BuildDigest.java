package dev.mobileagent.agent.digest;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;

/** The agent's build: the first 12 hex digits of the XXH3-64 digest of the file it was started from. */
public final class BuildDigest {
    private BuildDigest() {}

    public static String of(byte[] data) {
        return Xxh3.hex64(data).substring(0, 12);
    }

    public static String ofFile(File f) throws IOException {
        return of(readAll(f));
    }

    /** The first entry of a CLASSPATH value, which app_process was started with. */
    public static File firstEntry(String classpath) throws IOException {
        if (classpath == null || classpath.isEmpty()) throw new IOException("CLASSPATH is not set");
        String first = classpath.split(":", 2)[0];
        File f = new File(first);
        if (!f.isFile()) throw new IOException("the CLASSPATH entry " + first + " is not a readable file");
        return f;
    }

    static byte[] readAll(File f) throws IOException {
        InputStream in = new FileInputStream(f);
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream((int) Math.max(16, f.length()));
            byte[] buf = new byte[65536];
            int n;
            while ((n = in.read(buf)) > 0) out.write(buf, 0, n);
            return out.toByteArray();
        } finally {
            in.close();
        }
    }
}
