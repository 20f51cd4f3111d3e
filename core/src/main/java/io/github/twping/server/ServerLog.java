package io.github.twping.server;

import java.io.PrintStream;

/**
 * twampd's log: one line per event, {@code twampd[<pid>]: <message>} as the C daemon writes to syslog, to a
 * print stream (stderr in the foreground; the launcher redirects it to a file in daemon mode). Debug lines
 * appear only with {@code -v}/{@code verbose}. Thread-safe. Pass-phrases and keys are never given to it.
 *
 * <p>Every line is written through {@link #escape}: control characters (a KeyID holding {@code \n} or ESC,
 * a host name from a peer) appear as {@code \xNN} and a backslash as {@code \\}, so a peer can neither
 * forge a log line nor send escape sequences to a terminal.
 */
public final class ServerLog {
    private final PrintStream out;
    private final boolean verbose;
    private final String prefix;

    /** @param out where lines go; null discards everything. */
    public ServerLog(PrintStream out, boolean verbose) {
        this.out = out;
        this.verbose = verbose;
        this.prefix = "twampd[" + ProcessHandle.current().pid() + "]: ";
    }

    /** A log that discards everything. */
    public static ServerLog silent() {
        return new ServerLog(null, false);
    }

    public boolean verbose() {
        return verbose;
    }

    /** Access and lifecycle messages (LOG_INFO). */
    public void info(String message) {
        write(message);
    }

    /** Unexpected or dangerous conditions (LOG_WARNING). */
    public void warning(String message) {
        write(message);
    }

    /** Fatal errors for the requested action (LOG_ERR). */
    public void error(String message) {
        write(message);
    }

    /** Reasons for actions; only with verbose (LOG_DEBUG). */
    public void debug(String message) {
        if (verbose) {
            write(message);
        }
    }

    /**
     * {@code text} with every character below 0x20, DEL and the C1 controls (0x80-0x9f) written as
     * {@code \xNN}, and {@code \} as {@code \\}; other characters unchanged. Returns {@code text} itself
     * when nothing needs escaping.
     */
    public static String escape(String text) {
        int i = 0;
        int n = text.length();
        while (i < n && !needsEscape(text.charAt(i))) {
            i++;
        }
        if (i == n) {
            return text;
        }
        StringBuilder b = new StringBuilder(n + 16).append(text, 0, i);
        for (; i < n; i++) {
            char c = text.charAt(i);
            if (c == '\\') {
                b.append("\\\\");
            } else if (needsEscape(c)) {
                b.append("\\x").append(HEX[c >> 4 & 0xf]).append(HEX[c & 0xf]);
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private static boolean needsEscape(char c) {
        return c < 0x20 || c == 0x7f || c == '\\' || (c >= 0x80 && c <= 0x9f);
    }

    private void write(String message) {
        if (out != null) {
            String line = prefix + escape(message);
            synchronized (out) {
                out.println(line);
                out.flush();
            }
        }
    }
}
