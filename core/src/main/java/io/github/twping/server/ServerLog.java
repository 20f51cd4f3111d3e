package io.github.twping.server;

import io.github.twping.config.ControlCharacters;

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

    /** {@code text} with its control characters made visible ({@link ControlCharacters#escape}). */
    public static String escape(String text) {
        return ControlCharacters.escape(text);
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
