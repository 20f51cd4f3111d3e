package io.github.twping.server;

import java.util.concurrent.TimeUnit;

/**
 * The accept loop's reaction to failing {@code accept()} calls (file descriptors exhausted: the pending
 * connection stays in the backlog, so an immediate retry fails again): an exponential delay from
 * {@link #MIN_DELAY_NS} to {@link #MAX_DELAY_NS}, one log line per interval with the count of failures
 * since the last line, and one line when an accept succeeds again. Single-threaded (the accept thread).
 */
final class AcceptBackoff {
    static final long MIN_DELAY_NS = TimeUnit.MILLISECONDS.toNanos(1);
    static final long MAX_DELAY_NS = TimeUnit.MILLISECONDS.toNanos(100);
    static final long LOG_INTERVAL_NS = TimeUnit.SECONDS.toNanos(10);

    private final long logIntervalNs;
    private long delayNs;
    private long failures;
    private long unlogged;
    private long lastLogNs;
    private boolean logged;

    AcceptBackoff(long logIntervalNs) {
        this.logIntervalNs = logIntervalNs;
    }

    /**
     * Records a failure at {@code nowNs}; returns the line to log, or null when one was logged less than
     * an interval ago. Also advances {@link #delayNs()}.
     */
    String failed(String message, long nowNs) {
        failures++;
        unlogged++;
        delayNs = delayNs == 0 ? MIN_DELAY_NS : Math.min(MAX_DELAY_NS, delayNs * 2);
        if (logged && nowNs - lastLogNs < logIntervalNs) {
            return null;
        }
        String line = unlogged == 1 ? message + " (retrying with back-off)"
                : message + " (" + unlogged + " failures in the last " + TimeUnit.NANOSECONDS.toSeconds(logIntervalNs)
                        + " s, retrying with back-off)";
        logged = true;
        lastLogNs = nowNs;
        unlogged = 0;
        return line;
    }

    /** How long to wait before the next accept. */
    long delayNs() {
        return delayNs;
    }

    /** Records a successful accept; returns a recovery line after failures, else null. */
    String succeeded() {
        if (failures == 0) {
            return null;
        }
        String line = "accept(): accepting again after " + failures + " failed attempts";
        failures = 0;
        unlogged = 0;
        delayNs = 0;
        logged = false;
        return line;
    }
}
