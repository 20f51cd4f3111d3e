package io.github.twping.session;

import java.time.Instant;

/**
 * The reflector's wall clock: the current time as an NTP timestamp and the 16-bit error estimate that goes
 * with it (spec 4.1, 4.3). Injected so tests and a clock-status-aware implementation can replace it.
 */
public interface ReflectorClock {
    /** Seconds between 1900-01-01 and 1970-01-01. */
    long JAN_1970 = 2208988800L;
    /** The error estimate of an unsynchronised clock as C sends it: S=0, scale 0, multiplier 1. */
    int UNSYNCHRONISED_ERROR = 0x0001;

    /** The current time in epoch nanoseconds. */
    long nowEpochNs();

    /** The error estimate field for timestamps taken now. */
    int errorEstimate();

    /** The system clock, reported unsynchronised (no kernel clock status available here). */
    static ReflectorClock system() {
        return new ReflectorClock() {
            @Override
            public long nowEpochNs() {
                return systemEpochNs();
            }

            @Override
            public int errorEstimate() {
                return UNSYNCHRONISED_ERROR;
            }
        };
    }

    /** The system wall clock in epoch nanoseconds. */
    static long systemEpochNs() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }

    /** Converts epoch nanoseconds to an NTP Num64 (seconds since 1900 in the high word, binary fraction low). */
    static long toNtp(long epochNs) {
        long sec = Math.floorDiv(epochNs, 1_000_000_000L);
        long nsec = Math.floorMod(epochNs, 1_000_000_000L);
        return ((sec + JAN_1970) << 32) | ((nsec << 32) / 1_000_000_000L);
    }
}
