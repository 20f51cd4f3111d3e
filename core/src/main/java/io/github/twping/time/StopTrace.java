package io.github.twping.time;

import java.io.PrintStream;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A debug trace of the way from a stop signal to the exit (docs/CLI.md, signals; testing/signal-latency.sh
 * {@code --trace}): with {@code -Dtwping.stopTrace=true}, each {@link #mark} records a label and
 * {@link System#nanoTime()} (CLOCK_MONOTONIC on Linux, the clock of the script's {@code kill}), and
 * {@link #print} writes them to standard error as {@code stop-trace <label> <nanoTime>} lines. Off by default:
 * a mark is then one read of a constant. Marks are kept in memory until printed, so that tracing does not put
 * formatting or I/O on the traced path; at most {@value #CAPACITY} are kept.
 */
public final class StopTrace {
    private static final boolean ON = Boolean.getBoolean("twping.stopTrace");
    private static final int CAPACITY = 64;
    private static final String[] LABELS = ON ? new String[CAPACITY] : null;
    private static final long[] TIMES = ON ? new long[CAPACITY] : null;
    private static final AtomicInteger COUNT = ON ? new AtomicInteger() : null;

    private StopTrace() {
    }

    /** @return whether the trace is on ({@code -Dtwping.stopTrace=true}) */
    public static boolean on() {
        return ON;
    }

    /** Records {@code label} with the current monotonic time, when the trace is on; any thread. */
    public static void mark(String label) {
        if (!ON) {
            return;
        }
        long now = System.nanoTime();
        int i = COUNT.getAndIncrement();
        if (i < CAPACITY) {
            TIMES[i] = now;
            LABELS[i] = label;
        }
    }

    /** Writes the marks recorded so far to {@code err}, one line each, when the trace is on. */
    public static void print(PrintStream err) {
        if (!ON) {
            return;
        }
        int n = Math.min(COUNT.get(), CAPACITY);
        for (int i = 0; i < n; i++) {
            err.println("stop-trace " + LABELS[i] + " " + TIMES[i]);
        }
        err.flush();
    }
}
