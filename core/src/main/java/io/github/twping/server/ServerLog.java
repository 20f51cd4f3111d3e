package io.github.twping.server;

import java.io.PrintStream;

/**
 * twampd's log: one line per event, {@code twampd[<pid>]: <message>} as the C daemon writes to syslog, to a
 * print stream (stderr in the foreground; the launcher redirects it to a file in daemon mode). Debug lines
 * appear only with {@code -v}/{@code verbose}. Thread-safe. Pass-phrases and keys are never given to it.
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

    private void write(String message) {
        if (out != null) {
            synchronized (out) {
                out.println(prefix + message);
                out.flush();
            }
        }
    }
}
