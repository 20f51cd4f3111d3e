package io.github.twping.server;

import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A per-session warning sink for the reflector's per-packet messages (bad HMAC with {@code verbose}): the
 * first occurrence is logged, then at most one line per interval with the number of occurrences since the
 * last line, so a flood of forged packets cannot flood the log. Called on the reflector thread only; the
 * per-packet path is a counter and a clock read (no allocation, no lock), a line is built only when one is
 * written. The session's end line carries the total ({@code bad HMAC n}).
 */
final class RateLimitedWarning implements Consumer<String> {
    static final long INTERVAL_NS = TimeUnit.SECONDS.toNanos(10);

    private final ServerLog log;
    private final long intervalNs;
    private long suppressed;
    private long lastLineNs;
    private boolean any;

    RateLimitedWarning(ServerLog log, long intervalNs) {
        this.log = log;
        this.intervalNs = intervalNs;
    }

    @Override
    public void accept(String message) {
        long now = System.nanoTime();
        if (any && now - lastLineNs < intervalNs) {
            suppressed++;
            return;
        }
        if (suppressed == 0) {
            log.warning(message);
        } else {
            log.warning(message + " (" + (suppressed + 1) + " times in the last "
                    + TimeUnit.NANOSECONDS.toSeconds(now - lastLineNs) + " s)");
        }
        any = true;
        lastLineNs = now;
        suppressed = 0;
    }
}
