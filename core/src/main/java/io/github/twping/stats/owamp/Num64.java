package io.github.twping.stats.owamp;

import io.github.twping.time.ErrorEstimate;
import io.github.twping.time.NtpTime;

/** Num64/error-estimate arithmetic used by the statistics (docs/STATISTICS.md), delegating to {@code time}. */
final class Num64 {
    private Num64() {
    }

    /** D(t): the unsigned 64-bit value converted to the nearest double, divided by 2^32. */
    static double toDouble(long ntp) {
        return NtpTime.toDouble(ntp);
    }

    /** E(field): error estimate seconds {@code (multiplier << scale) / 2^32}; bit 14 ignored. */
    static double errorSeconds(int field) {
        return ErrorEstimate.seconds(field);
    }

    /** The S (synchronised) bit of an error-estimate field, as 0 or 1 (regardless of validity). */
    static int syncBit(int field) {
        return (field >>> 15) & 1;
    }
}
