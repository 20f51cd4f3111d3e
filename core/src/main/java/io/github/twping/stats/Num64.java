package io.github.twping.stats;

import io.github.twping.time.ErrorEstimate;
import io.github.twping.time.NtpTime;

/** Num64/error-estimate arithmetic used by the statistics (spec 6.1, 4.3), delegating to {@code time}. */
final class Num64 {
    /** Seconds between 1900-01-01 and 1970-01-01. */
    static final long JAN_1970 = 2208988800L;

    private Num64() {
    }

    /** D(t): the unsigned 64-bit value converted to the nearest double, divided by 2^32. */
    static double toDouble(long ntp) {
        return NtpTime.toDouble(ntp);
    }

    /** Unsigned 64-bit to nearest double, round-half-even (as a C uint64 to double conversion). */
    static double unsignedToDouble(long x) {
        if (x >= 0) {
            return (double) x;
        }
        return ((double) ((x >>> 1) | (x & 1))) * 2.0;
    }

    /** E(field): error estimate seconds {@code (multiplier << scale) / 2^32}; bit 14 ignored. */
    static double errorSeconds(int field) {
        return ErrorEstimate.seconds(field);
    }

    /** The S (synchronised) bit of an error-estimate field, as 0 or 1. */
    static int syncBit(int field) {
        return (field >>> 15) & 1;
    }

    /** Unix epoch seconds part of a Num64 timestamp. */
    static long epochSeconds(long ntp) {
        return (ntp >>> 32) - JAN_1970;
    }

    /** Nanoseconds within the second: floor(frac * 1e9 / 2^32). */
    static long nanosOfSecond(long ntp) {
        return ((ntp & 0xFFFF_FFFFL) * 1_000_000_000L) >>> 32;
    }
}
