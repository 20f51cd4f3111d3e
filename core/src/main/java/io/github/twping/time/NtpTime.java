package io.github.twping.time;

/**
 * Conversions and arithmetic for NTP 64-bit timestamps ("Num64", 32.32 unsigned fixed point)
 * held in a {@code long}.
 *
 * <p>Every value is an <em>unsigned</em> 64-bit number: compare with {@link #compareUnsigned},
 * print with {@link Long#toUnsignedString(long)}. Addition and subtraction are plain {@code long}
 * arithmetic (modulo 2^64, as in C).
 *
 * <p><b>Era rule (2036 rollover).</b> On the wire the seconds are 32 bits. Converting wall-clock
 * time to NTP keeps {@code (unixSeconds + JAN_1970) mod 2^32}, so 2036-02-07T06:28:16Z becomes
 * NTP second 0 again (era 1). Converting back uses a pivot: NTP seconds with the top bit set
 * (&ge; 2^31) are era 0 (1968-01-20T03:14:08Z .. 2036-02-07T06:28:15Z), seconds below 2^31 are
 * era 1 (2036-02-07T06:28:16Z .. 2104-02-26T09:42:23Z). This is the RFC 4330 section 3 rule; it
 * round-trips every instant in 1968-01-20 .. 2104-02-26.
 */
public final class NtpTime {
    /** Seconds from 1900-01-01 (NTP epoch) to 1970-01-01 (Unix epoch): 0x83AA7E80. */
    public static final long JAN_1970 = 2208988800L;

    /** One second as a Num64 ({@code 1 << 32}). */
    public static final long ONE_SECOND = 1L << 32;

    private static final long NANOS_PER_SECOND = 1_000_000_000L;
    private static final long MICROS_PER_SECOND = 1_000_000L;
    private static final double TWO_POW_32 = 4294967296.0;
    private static final double TWO_POW_63 = 9223372036854775808.0;
    private static final double TWO_POW_64 = 18446744073709551616.0;
    private static final long ERA_SECONDS = 1L << 32;
    private static final long PIVOT_NTP_SECONDS = 1L << 31;

    private NtpTime() {
    }

    /**
     * Converts wall-clock epoch nanoseconds (may be negative, i.e. before 1970) to an NTP timestamp:
     * {@code sec = (unixSec + JAN_1970) mod 2^32}, {@code frac = floor(nsec * 2^32 / 1e9)}.
     */
    public static long fromEpochNanos(long epochNs) {
        long unixSeconds = Math.floorDiv(epochNs, NANOS_PER_SECOND);
        long nanos = Math.floorMod(epochNs, NANOS_PER_SECOND);
        long ntpSeconds = (unixSeconds + JAN_1970) & 0xFFFF_FFFFL;
        long fraction = (nanos << 32) / NANOS_PER_SECOND;
        return (ntpSeconds << 32) | fraction;
    }

    /** Converts wall-clock epoch microseconds to an NTP timestamp (same rule as {@link #fromEpochNanos}). */
    public static long fromEpochMicros(long epochMicros) {
        long unixSeconds = Math.floorDiv(epochMicros, MICROS_PER_SECOND);
        long micros = Math.floorMod(epochMicros, MICROS_PER_SECOND);
        long ntpSeconds = (unixSeconds + JAN_1970) & 0xFFFF_FFFFL;
        long fraction = (micros << 32) / MICROS_PER_SECOND;
        return (ntpSeconds << 32) | fraction;
    }

    /**
     * Converts an NTP timestamp to wall-clock epoch nanoseconds, {@code nsec = floor(frac * 1e9 / 2^32)},
     * choosing the era with the pivot described in the class comment.
     */
    public static long toEpochNanos(long ntp) {
        return toUnixSeconds(ntp) * NANOS_PER_SECOND + fractionToNanos(ntp);
    }

    /** Converts an NTP timestamp to wall-clock epoch microseconds ({@code usec = floor(frac * 1e6 / 2^32)}). */
    public static long toEpochMicros(long ntp) {
        return toUnixSeconds(ntp) * MICROS_PER_SECOND + (((ntp & 0xFFFF_FFFFL) * MICROS_PER_SECOND) >>> 32);
    }

    /** Returns the Unix seconds of an NTP timestamp, era chosen by the pivot (class comment). */
    public static long toUnixSeconds(long ntp) {
        long ntpSeconds = ntp >>> 32;
        long era = ntpSeconds < PIVOT_NTP_SECONDS ? ERA_SECONDS : 0L;
        return ntpSeconds + era - JAN_1970;
    }

    /**
     * Returns {@code D(t) - 2208988800.0}: the Unix time as a double exactly as C twping prints it
     * (era 0 only, like C: the double of the raw Num64 minus the 1970 offset).
     */
    public static double toUnixSecondsDouble(long ntp) {
        return toDouble(ntp) - (double) JAN_1970;
    }

    /** Converts a Num64 duration (not a timestamp) to nanoseconds, truncating (always fits: below 2^32 s). */
    public static long durationToNanos(long durationNtp) {
        return (durationNtp >>> 32) * NANOS_PER_SECOND + fractionToNanos(durationNtp);
    }

    /**
     * Converts the signed difference of two Num64 times ({@code a - b} as a two's-complement long, e.g. a
     * deadline that may already have passed) to signed nanoseconds.
     */
    public static long signedDurationToNanos(long differenceNtp) {
        return differenceNtp >= 0 ? durationToNanos(differenceNtp) : -durationToNanos(-differenceNtp);
    }

    /** Converts a non-negative nanosecond duration to Num64, truncating ({@code floor(ns * 2^32 / 1e9)}). */
    public static long durationFromNanos(long durationNs) {
        long seconds = durationNs / NANOS_PER_SECOND;
        long nanos = durationNs % NANOS_PER_SECOND;
        return (seconds << 32) + ((nanos << 32) / NANOS_PER_SECOND);
    }

    /** Multiplies two Num64 values: bits 32..95 of the unsigned 128-bit product, {@code floor(x*y/2^32) mod 2^64}. */
    public static long mul(long x, long y) {
        return (Math.unsignedMultiplyHigh(x, y) << 32) | ((x * y) >>> 32);
    }

    /**
     * Converts a Num64 to seconds as a double, {@code D(t)}: the unsigned 64-bit integer rounded to
     * the nearest double (half-even), divided by 2^32.
     */
    public static double toDouble(long ntp) {
        double unsigned;
        if (ntp >= 0) {
            unsigned = (double) ntp;
        } else {
            // Keep the sticky low bit so the halving does not introduce a double rounding.
            unsigned = ((double) ((ntp >>> 1) | (ntp & 1L))) * 2.0;
        }
        return unsigned / TWO_POW_32;
    }

    /**
     * Converts seconds to a Num64, {@code floor(v * 2^32)} computed in double; negative values and NaN
     * give 0, values at or above 2^32 s saturate at 0xFFFFFFFFFFFFFFFF.
     */
    public static long fromSeconds(double seconds) {
        double scaled = seconds * TWO_POW_32;
        if (!(scaled > 0.0)) {
            return 0L;
        }
        if (scaled < TWO_POW_63) {
            return (long) scaled;
        }
        if (scaled >= TWO_POW_64) {
            return -1L;
        }
        // scaled is an integer here (ulp >= 2048); subtracting 2^63 is exact.
        return ((long) (scaled - TWO_POW_63)) ^ Long.MIN_VALUE;
    }

    /** Compares two Num64 values as unsigned numbers (same contract as {@link Long#compareUnsigned}). */
    public static int compareUnsigned(long a, long b) {
        return Long.compareUnsigned(a, b);
    }

    /** Returns the 32-bit seconds part. */
    public static long seconds(long ntp) {
        return ntp >>> 32;
    }

    /** Returns the 32-bit binary fraction part. */
    public static long fraction(long ntp) {
        return ntp & 0xFFFF_FFFFL;
    }

    private static long fractionToNanos(long ntp) {
        return ((ntp & 0xFFFF_FFFFL) * NANOS_PER_SECOND) >>> 32;
    }
}
