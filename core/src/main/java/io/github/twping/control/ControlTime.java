package io.github.twping.control;

import java.time.Instant;

/** Minimal NTP Num64 helpers for the control layer (the {@code time} package owns the full clock model). */
final class ControlTime {
    /** Seconds from 1900-01-01 to 1970-01-01. */
    static final long JAN_1970 = 2208988800L;
    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    private ControlTime() {
    }

    /** @return the current wall-clock time as NTP Num64 (seconds since 1900 in the high 32 bits). */
    static long nowNtp() {
        Instant now = Instant.now();
        return fromEpochParts(now.getEpochSecond(), now.getNano());
    }

    static long fromEpochParts(long epochSeconds, long nanos) {
        return ((epochSeconds + JAN_1970) << 32) | ((nanos << 32) / NANOS_PER_SECOND);
    }

    /** @return a non-negative duration in nanoseconds as Num64: seconds &lt;&lt; 32 | floor(frac * 2^32). */
    static long durationNsToNtp(long durationNs) {
        long ns = Math.max(0, durationNs);
        return ((ns / NANOS_PER_SECOND) << 32) | (((ns % NANOS_PER_SECOND) << 32) / NANOS_PER_SECOND);
    }
}
