package dev.mobileagent.agent.android;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * The known automation clients in the process list (/proc/PID/cmdline): uiautomator, other
 * mobile-agent processes, and instrumentation servers (com.github.uiautomator, io.appium.uiautomator2).
 */
final class Holders {
    /** One process that may hold UI automation. */
    static final class Holder {
        final long pid;
        final String name;
        /** The package to force-stop, or null to kill the pid. */
        final String pkg;

        Holder(long pid, String name, String pkg) {
            this.pid = pid;
            this.name = name;
            this.pkg = pkg;
        }
    }

    static final String[] PACKAGES = {"io.appium.uiautomator2.server", "com.github.uiautomator"};

    private Holders() {}

    static List<Holder> scan(long ownPid) {
        List<Holder> out = new ArrayList<>();
        File[] procs = new File("/proc").listFiles();
        if (procs == null) return out;
        for (File p : procs) {
            String n = p.getName();
            if (n.isEmpty() || !Character.isDigit(n.charAt(0))) continue;
            long pid;
            try {
                pid = Long.parseLong(n);
            } catch (NumberFormatException e) {
                continue;
            }
            if (pid == ownPid) continue;
            String cmdline = cmdline(new File(p, "cmdline"));
            if (cmdline == null || cmdline.isEmpty()) continue;
            Holder h = classify(pid, cmdline);
            if (h != null) out.add(h);
        }
        return out;
    }

    /** A holder for a known automation client's command line, or null. */
    static Holder classify(long pid, String cmdline) {
        if (cmdline.startsWith("mobile-agent ")) return new Holder(pid, cmdline, null);
        int launcher = cmdline.indexOf("com.android.commands.uiautomator.Launcher");
        if (launcher >= 0) {
            String rest = cmdline.substring(launcher + "com.android.commands.uiautomator.Launcher".length()).trim();
            return new Holder(pid, rest.isEmpty() ? "uiautomator" : "uiautomator " + rest, null);
        }
        String argv0 = cmdline.split(" ", 2)[0];
        if (argv0.equals("uiautomator") || argv0.endsWith("/uiautomator")) return new Holder(pid, cmdline, null);
        for (String pkg : PACKAGES) {
            if (cmdline.startsWith(pkg) || cmdline.contains(" " + pkg)) return new Holder(pid, cmdline, pkg);
        }
        return null;
    }

    static String cmdline(File f) {
        try {
            InputStream in = new FileInputStream(f);
            try {
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                byte[] buf = new byte[4096];
                int n;
                while ((n = in.read(buf)) > 0 && out.size() < 65536) out.write(buf, 0, n);
                byte[] b = out.toByteArray();
                int end = b.length;
                while (end > 0 && b[end - 1] == 0) end--;
                for (int i = 0; i < end; i++) if (b[i] == 0) b[i] = ' ';
                return new String(b, 0, end, "UTF-8").trim();
            } finally {
                in.close();
            }
        } catch (IOException e) {
            return null;
        }
    }
}
